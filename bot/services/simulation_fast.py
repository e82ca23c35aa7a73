"""A vectorised duel sampler (numpy) over the exact tables of :class:`bot.rules.simulation.DuelSimulator`.

Nothing here knows a rule: every probability and transition comes from the pure simulator (its round
models, per-attack distributions, critical effects, the core's end-of-round tick per condition, and
its ``advance`` for the ends of round that prompt a test). What changes is how duels are sampled:
a batch of duels advances round by round in lockstep, each duel's two states held as interned ids in
numpy arrays. Duels are grouped by what a draw depends on (the pair of effective profiles for the
round model; attacker, defender, attack number and free defences for an attack; the defender's
modifiers on tested stats for a critical) and each group draws with one
:class:`numpy.random.Generator` call; transitions to new states go through per-state lookup tables.

Limit (measured): critical effects with countdowns make most duels' states unique, so the per-state
bookkeeping (interning, reading the state's profile) stays in Python and dominates; the sampler does
~10 000-15 000 duels/s warm, not the 100 000/s aimed at. Getting there needs a state representation
without per-duel interning (conditions as fixed-width arrays ticked with array operations).

The model is the pure sampler's, round by round (the pure path skips quiet rounds with geometric
draws; the distribution is the same). A batch that the deadline interrupts is dropped as a whole (no
bias towards short duels); the first batch is always completed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bot.rules.simulation import MAX_DUELS, DuelSimulator, Tally, _Dist

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
State = tuple[int, ...]

FIRST_BATCH: Final = 4_000
MAX_BATCH: Final = 250_000
STATES_MAX: Final = 400_000
_CAP: Final = 1024
_UNKNOWN: Final = -1
_PROMPTS: Final = -2


def numpy_seed(rng: random.Random) -> int:
    """A 64-bit seed for :func:`numpy.random.default_rng`, drawn from the request's generator."""
    return rng.getrandbits(64)


def _grown(array: npt.NDArray[Any], size: int, fill: Any) -> npt.NDArray[Any]:
    if size <= len(array):
        return array
    out = np.full(max(size, 2 * len(array)), fill, dtype=array.dtype)
    out[: len(array)] = array
    return out


class _States:
    """One side's states, interned: id → state, with array lookups of what a round reads."""

    def __init__(self, sim: DuelSimulator, side: int) -> None:
        self.sim = sim
        self.side = side
        self.reset()

    def reset(self) -> None:
        self.ids: dict[State, int] = {}
        self.states: list[State] = []
        self.eff = np.zeros(_CAP, dtype=np.int64)
        self.out = np.zeros(_CAP, dtype=np.bool_)
        self.dead = np.zeros(_CAP, dtype=np.bool_)
        self.tests = np.zeros(_CAP, dtype=np.int64)
        self.next = np.full(_CAP, _UNKNOWN, dtype=np.int64)
        # per condition id: (effect piece id or -1, test piece id or -1, is death, ticked, prompts)
        self._conds: list[tuple[int, int, bool, tuple[int, ...], bool] | None] = []
        self._pieces: dict[Any, int] = {}
        self._eff_memo: dict[tuple[int, ...], int] = {}
        self._test_keys: dict[tuple[int, ...], int] = {}

    def _cond(self, cid: int) -> tuple[int, int, bool, tuple[int, ...], bool]:
        conds = self._conds
        if cid >= len(conds):
            conds.extend([None] * (cid + 1 - len(conds)))
        info = conds[cid]
        if info is None:
            sim = self.sim
            eff, test = sim._eff_piece[cid], sim._test_piece[cid]
            pieces = self._pieces
            kept, due = sim._tick_of(cid)
            info = (
                -1 if eff is None else pieces.setdefault(("e", eff), len(pieces)),
                -1 if test is None else pieces.setdefault(("t", test), len(pieces)),
                cid == sim.dead_id or sim._cond_list[cid].kind == "dead",
                kept,
                bool(due),
            )
            conds[cid] = info
        return info

    def intern(self, state: State) -> int:
        sid = self.ids.get(state)
        if sid is not None:
            return sid
        sid = len(self.states)
        self.ids[state] = sid
        self.states.append(state)
        if sid >= len(self.eff):
            self.eff = _grown(self.eff, sid + 1, 0)
            self.out = _grown(self.out, sid + 1, False)
            self.dead = _grown(self.dead, sid + 1, False)
            self.tests = _grown(self.tests, sid + 1, 0)
            self.next = _grown(self.next, sid + 1, _UNKNOWN)
        infos = [self._cond(cid) for cid in state]
        key = tuple(sorted(i[0] for i in infos if i[0] >= 0))
        eid = self._eff_memo.get(key)
        if eid is None:  # the simulator's own reading of the state (Combatant stats, can_act …)
            eid = self._eff_memo[key] = self.sim.info(self.side, state)[0]
        self.eff[sid] = eid
        self.out[sid] = self.sim._effs[eid].out
        self.dead[sid] = any(i[2] for i in infos)
        tests = tuple(sorted(i[1] for i in infos if i[1] >= 0))
        self.tests[sid] = self._test_keys.setdefault(tests, len(self._test_keys))
        return sid

    def fill_next(self, sids: IntArray) -> None:
        """The end-of-round successor of each unknown state (or :data:`_PROMPTS` if it rolls)."""
        unknown = sids[self.next[sids] == _UNKNOWN]
        if not len(unknown):
            return
        for sid in np.unique(unknown).tolist():
            kept: list[int] = []
            due = False
            for cid in self.states[sid]:
                info = self._cond(cid)
                kept.extend(info[3])
                due = due or info[4]
            self.next[sid] = _PROMPTS if due else self.intern(tuple(sorted(kept)))


class _Uniforms:
    """``random()`` for the pure code's per-duel paths, served from numpy blocks."""

    __slots__ = ("block", "pos", "rng")

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.block: list[float] = []
        self.pos = 0

    def __call__(self) -> float:
        if self.pos >= len(self.block):
            self.block = self.rng.random(4096).tolist()
            self.pos = 0
        self.pos += 1
        return self.block[self.pos - 1]


class FastSampler:
    """Samples the duels of one :class:`DuelSimulator` with numpy: arrays of duels, round by round.

    Each duel carries its two states as ids (interned per side); the round model, the attack
    distributions and the critical effects are the simulator's, read once per distinct key and
    turned into arrays (cumulative weights; outcome properties by outcome id).
    """

    def __init__(self, simulator: DuelSimulator) -> None:
        self.sim = simulator
        self.sides = (_States(simulator, 0), _States(simulator, 1))
        self.rng = np.random.default_rng()
        # outcomes of attacks, interned: properties by id
        self._oc_ids: dict[Any, int] = {}
        self._oc: list[Any] = []
        self._oc_arrays: tuple[npt.NDArray[Any], ...] = ()
        self._oc_len = -1
        # slot lists, interned: side and k by (list, position)
        self._sl_ids: dict[tuple[tuple[int, int], ...], int] = {}
        self._sl: list[tuple[tuple[int, int], ...]] = []
        self._sl_arrays: tuple[IntArray, IntArray, IntArray] = (
            np.zeros(0, dtype=np.int64),
            np.zeros((0, 1), dtype=np.int64),
            np.zeros((0, 1), dtype=np.int64),
        )
        self._sl_len = -1
        self._attacks = np.zeros(0, dtype=np.int64)
        self._dists: dict[int, tuple[_Dist, IntArray]] = {}
        self._cums: dict[int, tuple[_Dist, npt.NDArray[np.float64]]] = {}
        self._events: dict[int, tuple[Any, ...]] = {}
        self._added: dict[tuple[int, int, State], int] = {}

    # -- interning --------------------------------------------------------------------------------

    def _oc_id(self, outcome: Any) -> int:
        oid = self._oc_ids.get(outcome)
        if oid is None:
            oid = self._oc_ids[outcome] = len(self._oc)
            self._oc.append(outcome)
        return oid

    def _outcome_arrays(self) -> tuple[npt.NDArray[Any], ...]:
        if self._oc_len != len(self._oc):
            oc = self._oc
            self._oc_arrays = (
                np.array([o[0] for o in oc], dtype=np.bool_),  # event
                np.array([o[1] for o in oc], dtype=np.bool_),  # hit
                np.array([o[2] for o in oc], dtype=np.bool_),  # parry used
                np.array([o[3] for o in oc], dtype=np.bool_),  # dodge used
                np.array([o[4] or o[5] for o in oc], dtype=np.int64),  # critical value
            )
            self._oc_len = len(oc)
        return self._oc_arrays

    def _sl_id(self, slots: tuple[tuple[int, int], ...]) -> int:
        lid = self._sl_ids.get(slots)
        if lid is None:
            lid = self._sl_ids[slots] = len(self._sl)
            self._sl.append(slots)
        return lid

    def _slot_arrays(self) -> tuple[IntArray, IntArray, IntArray]:
        if self._sl_len != len(self._sl):
            width = max([len(s) for s in self._sl] + [1])
            lengths = np.array([len(s) for s in self._sl], dtype=np.int64)
            side = np.zeros((len(self._sl), width + 1), dtype=np.int64)
            k = np.zeros((len(self._sl), width + 1), dtype=np.int64)
            for i, slots in enumerate(self._sl):
                for j, (s, kk) in enumerate(slots):
                    side[i, j], k[i, j] = s, kk
            self._sl_arrays = (lengths, side, k)
            self._sl_len = len(self._sl)
        return self._sl_arrays

    def _attack_counts(self) -> IntArray:
        effs = self.sim._effs
        if len(self._attacks) != len(effs):
            self._attacks = np.array([e.attacks for e in effs], dtype=np.int64)
        return self._attacks

    def _cum(self, dist: _Dist) -> npt.NDArray[np.float64]:
        entry = self._cums.get(id(dist))
        if entry is None or entry[0] is not dist:
            entry = (dist, np.asarray(dist.cum, dtype=np.float64))
            self._cums[id(dist)] = entry
        return entry[1]

    def _outcome_ids(self, dist: _Dist) -> IntArray:
        """The outcome ids of an attack distribution's items."""
        entry = self._dists.get(id(dist))
        if entry is None or entry[0] is not dist:
            entry = (dist, np.array([self._oc_id(o) for o in dist.items], dtype=np.int64))
            self._dists[id(dist)] = entry
        return entry[1]

    def _draw(self, dist: _Dist, n: int) -> IntArray:
        """Indices into ``dist.items`` (the inversion of ``_Dist.sample``)."""
        items = len(dist.items)
        if items == 1:
            return np.zeros(n, dtype=np.int64)
        cum = self._cum(dist)
        picks = np.searchsorted(cum, self.rng.random(n) * dist.total, side="right").astype(np.int64)
        np.minimum(picks, items - 1, out=picks)
        return picks

    @staticmethod
    def _groups(keys: IntArray) -> list[tuple[int, IntArray]]:
        """(key, positions) for each distinct key."""
        if not len(keys):
            return []
        first = keys[0]
        if (keys == first).all():
            return [(int(first), np.arange(len(keys)))]
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        starts = [0, *cuts.tolist()]
        ends = [*cuts.tolist(), len(keys)]
        return [(int(ordered[a]), order[a:b]) for a, b in zip(starts, ends, strict=True)]

    def _round_events(self, model: Any) -> tuple[Any, ...]:
        """A round model's event table as arrays: slot list, index, outcome id, flags (bits)."""
        entry = self._events.get(id(model))
        if entry is None or entry[0] is not model:
            items = model.events.items
            lists = (self._sl_id(model.slots[0]), self._sl_id(model.slots[1]))
            entry = (
                model,
                np.array([lists[e[0]] for e in items], dtype=np.int64),
                np.array([e[1] for e in items], dtype=np.int64),
                np.array([self._oc_id(e[2]) for e in items], dtype=np.int64),
                np.array([sum(int(b) << i for i, b in enumerate(e[3])) for e in items], dtype=np.int64),
            )
            self._events[id(model)] = entry
        return entry

    # -- one round --------------------------------------------------------------------------------

    def _criticals(self, side: int, duels: IntArray, outcomes: IntArray, states: IntArray) -> IntArray:
        """Criticals dealt by ``side`` (one per duel): the victims' new state ids."""
        sim = self.sim
        victim = 1 - side
        table = self.sides[victim]
        width = len(self._oc) + 1
        # the effect depends on the state only through its modifiers on tested stats
        current = states[duels]
        uniq, first, inverse = np.unique(
            table.tests[current] * width + outcomes, return_index=True, return_inverse=True
        )
        dists: list[_Dist] = []
        local: dict[int, int] = {}
        chosen: list[int] = []
        for key, at in zip(uniq.tolist(), first.tolist(), strict=True):
            oid = key % width
            sid = int(current[at])
            outcome = self._oc[oid]
            dist = sim.critical_effect(victim, table.states[sid], outcome[4] or outcome[5], outcome[6])
            di = local.get(id(dist))
            if di is None:
                di = local[id(dist)] = len(dists)
                dists.append(dist)
            chosen.append(di)
        per_duel = np.array(chosen, dtype=np.int64)[inverse.reshape(-1)]
        picks = np.zeros(len(duels), dtype=np.int64)
        for di, pos in self._groups(per_duel):
            picks[pos] = self._draw(dists[di], len(pos))
        span = max(len(d.items) for d in dists) + 1
        uniq2, inverse2 = np.unique((current * len(dists) + per_duel) * span + picks, return_inverse=True)
        added_ids = self._added
        new: list[int] = []
        for key in uniq2.tolist():
            rest, pick = divmod(key, span)
            sid, di = divmod(rest, len(dists))
            added = dists[di].items[pick]
            if not added:
                new.append(sid)
                continue
            nid = added_ids.get((victim, sid, added))
            if nid is None:
                nid = table.intern(tuple(sorted(table.states[sid] + added)))
                added_ids[(victim, sid, added)] = nid
            new.append(nid)
        return np.array(new, dtype=np.int64)[inverse2.reshape(-1)]

    def _in_round(
        self,
        duels: IntArray,
        lists: IntArray,
        index: IntArray,
        flags: IntArray,
        outcomes: IntArray,
        rounds: int,
        out: _Outcome,
    ) -> IntArray:
        """From each duel's first event of the round to the end of its round (or of the duel)."""
        sim = self.sim
        table_a, table_b = self.sides
        sa, sb = out.states
        lengths, slot_side, slot_k = self._slot_arrays()
        ended: list[IntArray] = []
        d, sl, idx, fl, oc = duels, lists, index, flags, outcomes
        while len(d):
            event, hit, _, _, value = self._outcome_arrays()
            side = slot_side[sl, idx]
            if event[oc].any():
                landed = hit[oc]
                for s in (0, 1):
                    mask = landed & (side == s)
                    if mask.any():
                        dd = d[mask]
                        first = out.first_hit[s]
                        seen = first[dd]
                        first[dd] = np.where(seen == 0, rounds, seen)
                values = value[oc]
                critical = values > 0
                if critical.any():
                    keep = np.ones(len(d), dtype=np.bool_)
                    for s in (0, 1):
                        pos = np.flatnonzero(critical & (side == s))
                        if not len(pos):
                            continue
                        counts = out.criticals[s]
                        for v, c in zip(*np.unique(values[pos], return_counts=True), strict=True):
                            counts[int(v)] = counts.get(int(v), 0) + int(c)
                        victims = (sa, sb)[1 - s]
                        new = self._criticals(s, d[pos], oc[pos], victims)
                        victims[d[pos]] = new
                        gone = self.sides[1 - s].out[new]
                        if gone.any():
                            finished = d[pos[gone]]
                            out.winner[finished] = s
                            out.end[finished] = rounds
                            keep[pos[gone]] = False
                    if not keep.all():
                        d, sl, idx, fl = d[keep], sl[keep], idx[keep], fl[keep]
            # the next slot whose attacker may still attack
            idx = idx + 1
            attacks = self._attack_counts()
            while True:
                valid = idx < lengths[sl]
                side = slot_side[sl, idx]
                k = slot_k[sl, idx]
                e_side = np.where(side == 0, table_a.eff[sa[d]], table_b.eff[sb[d]])
                skip = valid & (attacks[e_side] < k)
                if not skip.any():
                    break
                idx = idx + skip
            if not valid.all():
                ended.append(d[~valid])
                d, sl, idx, fl = d[valid], sl[valid], idx[valid], fl[valid]
                side, k, e_side = side[valid], k[valid], e_side[valid]
            if not len(d):
                break
            e_other = np.where(side == 0, table_b.eff[sb[d]], table_a.eff[sa[d]])
            bit = np.where(side == 0, 2, 0)
            parry_free = (fl >> bit) & 1
            dodge_free = (fl >> (bit + 1)) & 1
            keys = ((((side << 16) + e_side) << 16) + e_other) * 256 + k * 4 + parry_free * 2 + dodge_free
            oc = np.empty(len(d), dtype=np.int64)
            for key, pos in self._groups(keys):
                rest, low = divmod(key, 256)
                kk, pf, df = low // 4, bool(low & 2), bool(low & 1)
                rest, eo = divmod(rest, 1 << 16)
                s, es = divmod(rest, 1 << 16)
                dist = sim.attack_distribution(s, es, eo, kk, pf, df)
                ids = self._outcome_ids(dist)
                oc[pos] = ids[self._draw(dist, len(pos))]
            _, _, pu, du, _ = self._outcome_arrays()
            fl = fl & ~((pu[oc].astype(np.int64) << bit) | (du[oc].astype(np.int64) << (bit + 1)))
        return np.concatenate(ended) if ended else np.zeros(0, dtype=np.int64)

    def _end_of_round(self, duels: IntArray, uniforms: _Uniforms, out: _Outcome) -> None:
        """Every condition ticks (``DuelSimulator.advance``; what rolls dice goes through it)."""
        for table, states in zip(self.sides, out.states, strict=True):
            current = states[duels]
            table.fill_next(current)
            following = table.next[current]
            rolls = np.flatnonzero(following == _PROMPTS)
            for j in rolls.tolist():
                state = table.states[int(current[j])]
                following[j] = table.intern(self.sim.advance(table.side, state, uniforms))
            states[duels] = following

    def _batch(self, n: int, deadline: float | None, clock: Callable[[], float], must: bool) -> Tally | None:
        """``n`` duels to their end; None if ``deadline`` passes first (unless ``must``)."""
        sim = self.sim
        table_a, table_b = self.sides
        out = _Outcome(n, table_a.intern(sim.start[0]), table_b.intern(sim.start[1]))
        sa, sb = out.states
        uniforms = _Uniforms(self.rng)
        active = np.arange(n, dtype=np.int64)
        max_rounds = sim.options.max_rounds
        rounds = 0
        while len(active):
            if deadline is not None and not must and rounds and clock() > deadline:
                return None
            rounds += 1
            ends: list[IntArray] = []
            parts: list[tuple[IntArray, ...]] = []
            pairs = (table_a.eff[sa[active]] << 16) + table_b.eff[sb[active]]
            for key, pos in self._groups(pairs):
                d = active[pos]
                model = sim.round_model(key >> 16, key & 0xFFFF)
                if model.quiet >= 1.0:
                    ends.append(d)
                    continue
                if model.quiet > 0:
                    quiet = self.rng.random(len(d)) < model.quiet
                    ends.append(d[quiet])
                    d = d[~quiet]
                    if not len(d):
                        continue
                events = self._round_events(model)
                picks = self._draw(model.events, len(d))
                parts.append((d, events[1][picks], events[2][picks], events[4][picks], events[3][picks]))
            if parts:
                d, sl, ix, fl, oc = (np.concatenate(c) for c in zip(*parts, strict=True))
                ends.append(self._in_round(d, sl, ix, fl, oc, rounds, out))
            finished_round = np.concatenate(ends) if ends else np.zeros(0, dtype=np.int64)
            self._end_of_round(finished_round, uniforms, out)
            out_a = table_a.out[sa[finished_round]]
            out_b = table_b.out[sb[finished_round]]
            over = out_a | out_b
            if over.any():
                done = finished_round[over]
                out.winner[done] = np.where(
                    out_b[over] & ~out_a[over], 0, np.where(out_a[over] & ~out_b[over], 1, 2)
                )
                out.end[done] = rounds
            active = finished_round[~over]
            if rounds >= max_rounds:
                out.winner[active] = 2
                active = active[:0]
        return out.tally(self)

    # -- duels ------------------------------------------------------------------------------------

    def run(
        self,
        duels: int,
        seed: int | None = None,
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> Tally:
        """Sample ``duels`` duels (fewer if ``deadline``, a ``clock()`` value, passes first)."""
        self.rng = np.random.default_rng(seed)
        started = clock()
        tally = Tally()
        duels = max(0, min(duels, MAX_DUELS))
        size = min(duels, FIRST_BATCH if deadline is not None else MAX_BATCH)
        while tally.duels < duels:
            now = clock()
            if deadline is not None and now > deadline:
                tally.stopped_by_time = True
                break
            if deadline is not None and tally.duels:
                rate = tally.duels / max(now - started, 1e-9)
                size = int(min(MAX_BATCH, max(FIRST_BATCH, rate * (deadline - now) * 0.5)))
            size = min(size, duels - tally.duels)
            if max(len(t.states) for t in self.sides) > STATES_MAX:  # bounded memory: forget the states
                for t in self.sides:
                    t.reset()
                self._added.clear()
            done = self._batch(size, deadline, clock, must=not tally.duels)
            if done is None:
                tally.stopped_by_time = True
                break
            tally.merge(done)
        tally.seconds = clock() - started
        return tally


class _Outcome:
    """Per-duel arrays of one batch: states, winner (-1 running, 0/1, 2 draw), last round, first hits."""

    def __init__(self, n: int, start_a: int, start_b: int) -> None:
        self.states = (np.full(n, start_a, dtype=np.int64), np.full(n, start_b, dtype=np.int64))
        self.winner = np.full(n, -1, dtype=np.int64)
        self.end = np.zeros(n, dtype=np.int64)
        self.first_hit = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
        self.criticals: list[dict[int, int]] = [{}, {}]

    def tally(self, sampler: FastSampler) -> Tally:
        tally = Tally()
        tally.duels = len(self.winner)
        for side in (0, 1):
            won = self.winner == side
            tally.wins[side] = int(np.count_nonzero(won))
            tally.rounds_total += int(self.end[won].sum())
            tally.first_hit_sum[side] = int(self.first_hit[side].sum())
            tally.first_hit_count[side] = int(np.count_nonzero(self.first_hit[side]))
            tally.criticals[side] = dict(self.criticals[side])
            loser = sampler.sides[1 - side]
            dead = int(np.count_nonzero(loser.dead[self.states[1 - side][won]]))
            for reason, count in (("dead", dead), ("unconscious", tally.wins[side] - dead)):
                if count:
                    tally.outs[reason] = tally.outs.get(reason, 0) + count
        tally.draws = tally.duels - tally.wins[0] - tally.wins[1]
        return tally
