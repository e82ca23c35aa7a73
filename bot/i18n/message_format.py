"""The catalogue's message format: ``str.format`` placeholders plus ICU-style plural, select and gender.

Every value in ``locales/*/*.json`` is a template. A plain template is exactly a ``str.format``
string (``"{name} attaque {target}"``, ``{value:+d}``, ``{{`` for a literal brace) and is rendered by
``str.format_map``, in C. On top of it, inside the same braces (ICU MessageFormat syntax)::

    {n, plural, one {# round} other {# rounds}}     CLDR plural category (Babel), "#" = n, formatted
    {n, plural, =0 {aucun} one {# dé} other {# dés}} an exact value wins over the category
    {name, gender, f {touchée} other {touché}}      the grammatical gender of ``name`` (``Name.gender``)
    {kind, select, melee {mêlée} other {tir}}       the value itself
    {x, number}   {x, number, 0.0}                  a number in the locale (« 97,2 », « 1 000 »)

Sub-messages nest and may use any of the above. In French, three things need no markup at all:

* **elision and contraction** before a value: « de {name} » gives « d'Élise », « d'Ag », « du
  gobelin » (value « le gobelin »), « des gobelins »; « le/la {x} » gives « l'Orque », « que {name} »
  « qu'Élise », « à {x} » « au gobelin ». A mute h elides (« d'homme », « d'Hugo »), an aspirated
  one does not (« de hache », :data:`ASPIRATED_H`); a capitalised name with an h is aspirated
  (« de Hans ») unless :data:`MUTE_H_NAMES` says otherwise;
* **the decimal comma**: a ``float`` value prints « 2,5 » (``{x:.1f}`` too);
* **gender** travels with the value: :class:`bot.rules.names.Name` is a ``str`` with a ``gender``
  attribute; any value with a ``gender`` attribute (or the plain strings ``"f"``/``"m"``) is read by
  ``{x, gender, …}``; anything else is masculine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Final

ELIDING: Final = frozenset(
    {"de", "le", "la", "que", "ne", "je", "me", "te", "se", "jusque", "lorsque", "puisque", "quoique"}
)
VOWELS: Final = frozenset("aeiouyàâäéèêëîïôöùûüÿœæAEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜŸŒÆ")
# Words with an aspirated h: no elision before them (« de Hache », « le héros »). Lower case.
ASPIRATED_H: Final = frozenset(
    {
        "hache", "haches", "hachette", "hallebarde", "hallebardes", "halfling", "halflings", "haut",
        "haute", "hauts", "hautes", "héros", "hibou", "honte", "hurlement", "harpie", "harpies",
        "hasard", "hâte", "hameau", "harnais", "heaume", "heaumes", "huit", "hors", "hobgobelin",
        "hobgobelins", "hobbit", "hobbits", "hussard", "haine", "hampe", "hanche", "hanches",
        "hargne", "hérisson", "hennissement", "houx", "hurleur", "hurleurs", "hutte",
    }
)  # fmt: skip
# A capitalised word with an h (a name: « Hans », « Helga », « Heinrich ») is taken as aspirated, the
# Old World's names being mostly German: no elision, except these (lower case).
MUTE_H_NAMES: Final = frozenset(
    {
        "homme", "hommes", "humain", "humaine", "humains", "humaines", "heure", "heures", "herbe",
        "herbes", "hiver", "histoire", "honneur", "hôpital", "hugo", "hugues", "hélène", "henri",
        "hector", "hermine", "homère", "hippolyte", "hortense", "hubert", "hélios", "hermès",
    }
)  # fmt: skip
_MARKUP: Final = "*_~`|"
# The end of the text before a value: an eliding word (or « à » for contractions), one space, and
# optional markdown (« de **{name}** »).
_TAIL = re.compile(r"(?:(?<=[\s(«\"'’/—–-])|^)([A-Za-zÀ-ÿ]+) ([*_~`|]*)$")
_ICU = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*(plural|select|gender|number)\s*(?:,\s*(.*))?$", re.S)
_NEEDS_ENGINE = re.compile(
    r"(?:^|[\s(«\"'’/—–-])(?:de|le|la|que|ne|je|me|te|se|jusque|lorsque|puisque|quoique|à) [*_~`|]*\{"
    r"|\{\s*[A-Za-z_]\w*\s*,\s*(?:plural|select|gender|number)\b",
    re.IGNORECASE,
)


class _SafeDict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class FrenchFloat(float):
    """A float whose ``format`` uses the decimal comma (and a narrow no-break space for thousands)."""

    def __format__(self, spec: str) -> str:
        text = float.__format__(self, spec)
        if "," in spec:
            return text.replace(",", "\u202f").replace(".", ",")
        return text.replace(".", ",")


# ---------------------------------------------------------------------------------------------
# Locale data (Babel: CLDR plural rules and number formats), loaded on first use


@cache
def _plural_rule(language: str) -> Callable[[float | int], str]:
    from babel.core import Locale

    rule: Callable[[float | int], str] = Locale.parse(language).plural_form
    return rule


_PLURAL_CACHE: dict[tuple[str, int], str] = {}


def plural_category(language: str, n: float | int) -> str:
    """The CLDR plural category of ``n`` in ``language``: ``one``, ``many``, ``other`` …"""
    if type(n) is int and -1000 < n < 1000:
        key = (language, n)
        category = _PLURAL_CACHE.get(key)
        if category is None:
            category = _PLURAL_CACHE[key] = _plural_rule(language)(n)
        return category
    return _plural_rule(language)(n)


def format_number(language: str, value: float | int, pattern: str | None = None) -> str:
    """``value`` written the locale's way: « 97,2 » and « 1 000 » in French, « 97.2 » in English.

    ``pattern`` is a CLDR decimal pattern (``"0.0"``, ``"0.00"``, ``"#,##0"``); without it, up to three
    decimals, no trailing zeros.
    """
    if pattern is None and type(value) is int and -1000 < value < 1000:
        return str(value)
    from babel.numbers import format_decimal

    return str(format_decimal(value, format=pattern, locale=language))


def gender_of(value: Any) -> str:
    gender = getattr(value, "gender", None)
    if isinstance(gender, str):
        return gender
    if value in ("f", "m", "n") and type(value) is str:
        return str(value)
    return "m"


# ---------------------------------------------------------------------------------------------
# Elision


def _starts_with_vowel_sound(text: str) -> bool:
    stripped = text.lstrip(_MARKUP)
    if not stripped:
        return False
    first = stripped[0]
    if first in "hH":
        word = re.match(r"[^\W\d_]+", stripped)
        if word is None or len(word.group(0)) < 2:
            return False
        lower = word.group(0).lower()
        if first == "H":
            return lower in MUTE_H_NAMES
        return lower not in ASPIRATED_H
    if first in "yY":
        return len(stripped) > 1 and stripped[1] not in VOWELS and stripped[1].isalpha()
    return first in VOWELS


def join_french(before: str, value: str) -> str:
    """``before + value`` with French elision and contraction at the seam (« de » + « Élise »)."""
    match = _TAIL.search(before)
    if match is None:
        return before + value
    word, markup = match.group(1), match.group(2)
    lower = word.lower()
    if lower not in ELIDING and lower != "à":
        return before + value
    head = before[: match.start(1)]
    body = value.lstrip(_MARKUP)
    lead = value[: len(value) - len(body)]
    if lower in ("de", "à"):
        article = re.match(r"(le|les) (?=\S)", body, re.IGNORECASE)
        if article is not None:
            fused = {"de": {"le": "du", "les": "des"}, "à": {"le": "au", "les": "aux"}}[lower]
            contracted = fused[article.group(1).lower()]
            if word[0].isupper():
                contracted = contracted.capitalize()
            return head + contracted + " " + markup + lead + body[article.end() :]
    if lower == "à" or not _starts_with_vowel_sound(body):
        return before + value
    return head + word[:-1] + "'" + markup + value  # « de » → « d' », « La » → « L' »


# ---------------------------------------------------------------------------------------------
# Parsing


class MessageSyntaxError(ValueError):
    pass


Node = tuple[Any, ...]  # ("text", s) | ("field", fmt) | ("plural", name, cases) | ("select"…) | ("number"…)


def _matching(template: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start`` (braces nest)."""
    depth = 0
    i = start
    while i < len(template):
        ch = template[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise MessageSyntaxError(f"unclosed brace at {start} in {template!r}")


def _cases(body: str, template: str) -> dict[str, list[Node]]:
    cases: dict[str, list[Node]] = {}
    i = 0
    while i < len(body):
        if body[i].isspace():
            i += 1
            continue
        j = body.find("{", i)
        if j < 0:
            raise MessageSyntaxError(f"case without a message in {template!r}")
        key = body[i:j].strip()
        if not key or " " in key:
            raise MessageSyntaxError(f"bad case key {key!r} in {template!r}")
        end = _matching(body, j)
        cases[key] = parse(body[j + 1 : end], nested=True)
        i = end + 1
    if "other" not in cases:
        raise MessageSyntaxError(f"a plural/select/gender needs an « other » case: {template!r}")
    return cases


@cache
def parse(template: str, nested: bool = False) -> list[Node]:
    """The template as nodes; ``#`` is kept as its own node inside nested (plural) messages."""
    nodes: list[Node] = []
    text: list[str] = []
    i = 0
    n = len(template)

    def flush() -> None:
        if text:
            nodes.append(("text", "".join(text)))
            text.clear()

    while i < n:
        ch = template[i]
        if ch == "{":
            if template.startswith("{{", i):
                text.append("{")
                i += 2
                continue
            end = _matching(template, i)
            inner = template[i + 1 : end]
            icu = _ICU.match(inner)
            flush()
            if icu is None:
                nodes.append(("field", "{" + inner + "}"))
            else:
                name, kind, rest = icu.group(1), icu.group(2), icu.group(3)
                if kind == "number":
                    nodes.append(("number", name, (rest or "").strip() or None))
                else:
                    nodes.append((kind, name, _cases(rest or "", template)))
            i = end + 1
        elif ch == "}":
            text.append("}")
            i += 2 if template.startswith("}}", i) else 1
        elif ch == "#" and nested:
            flush()
            nodes.append(("hash",))
            i += 1
        else:
            text.append(ch)
            i += 1
    flush()
    return nodes


def needs_engine(template: str) -> bool:
    """Whether ``template`` is more than a ``str.format`` string (ICU parts, or a place to elide)."""
    return _NEEDS_ENGINE.search(template) is not None


# ---------------------------------------------------------------------------------------------
# Rendering


def render(template: str, language: str, params: Mapping[str, Any]) -> str:
    safe = _SafeDict(params)
    return _render(parse(template), language, safe, None)


def _append(out: list[str], piece: str, language: str) -> None:
    if not piece:
        return
    if language == "fr" and out:
        before = "".join(out)
        out.clear()
        out.append(join_french(before, piece))
    else:
        out.append(piece)


def _render(nodes: list[Node], language: str, params: _SafeDict, number: Any) -> str:
    out: list[str] = []
    for node in nodes:
        kind = node[0]
        if kind == "text":
            out.append(node[1])
        elif kind == "field":
            _append(out, node[1].format_map(params), language)
        elif kind == "hash":
            _append(out, _number_text(language, number), language)
        elif kind == "number":
            value = params.get(node[1])
            piece = "{" + node[1] + "}" if value is None else _number_text(language, value, node[2])
            _append(out, piece, language)
        else:
            name, cases = node[1], node[2]
            value = params.get(name)
            if kind == "plural":
                chosen = None
                if isinstance(value, (int, float)):
                    exact = "=" + _plain_number(value)
                    chosen = cases.get(exact)
                    if chosen is None:
                        chosen = cases.get(plural_category(language, value))
                    sub = _render(chosen if chosen is not None else cases["other"], language, params, value)
                else:
                    sub = _render(cases["other"], language, params, value)
            else:
                key = gender_of(value) if kind == "gender" else str(value)
                sub = _render(cases.get(key, cases["other"]), language, params, number)
            _append(out, sub, language)
    return "".join(out)


def _plain_number(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _number_text(language: str, value: Any, pattern: str | None = None) -> str:
    if isinstance(value, float):
        return format_number(language, float(value), pattern)
    if isinstance(value, int) and not isinstance(value, bool):
        return format_number(language, int(value), pattern)
    return str(value)


def argument_names(template: str) -> set[str]:
    """The parameter names a template reads (``{name}``, ``{n, plural, …}``, nested ones too)."""
    names: set[str] = set()

    def walk(nodes: list[Node]) -> None:
        for node in nodes:
            if node[0] == "field":
                head = re.match(r"\{([A-Za-z_]\w*)", node[1])
                if head is not None:
                    names.add(head.group(1))
            elif node[0] in ("plural", "select", "gender", "number"):
                names.add(node[1])
                if node[0] != "number":
                    for sub in node[2].values():
                        walk(sub)

    walk(parse(template))
    return names
