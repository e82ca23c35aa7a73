"""A vectorised duel sampler (numpy) over the exact tables of the pure simulator
(:class:`bot.rules.renove.simulation.DuelSimulator`).

Nothing here knows a rule. Every probability and every transition is read from the pure simulator,
which enumerates the combat core: its round models and per-attack distributions, its critical
effects (``critical_effect``), the core's end-of-round :func:`tick` of each condition (``_tick_of``),
the tests a tick prompts (``_pending_dist``) and each state's effective profile (``_eff_of``). What
changes is how duels are sampled: the running duels advance round by round in lockstep, and
everything a round reads is an array lookup.

* A fighter's conditions are entries of one list (row = 2 × duel + side, ``cid + 1``). The
  end-of-round tick is one gather through ``next[cid]`` (the core's tick of each condition on its
  own, read when a condition first ends a round: at most one condition stays), plus the prompts
  (``prompt[cid]``) rolled in the pure simulator's order (by condition id).
* What a state changes is read through sums kept per row as conditions come and go: Zobrist hashes
  of multisets (64-bit random values, one per *piece*) of the effect pieces (the simulator's own
  ``_eff_memo`` key: the effective profile) and of the test pieces (the key of critical effects and
  prompted tests), and counts of the conditions that put out (the simulator's ``out``) or kill.
  Hash → id goes through open-addressing tables in numpy arrays; a miss asks the simulator once.
* Every distribution (round model, attack, critical effect, prompted test) becomes an alias table in
  flat arrays: one uniform per draw, whatever the mix of distributions among the duels.

The model is the pure sampler's round by round (the pure path skips quiet rounds with geometric
draws; the distribution is the same). Duels are admitted in cohorts: the next cohort joins the tail
of the running one (at most two in flight, so a cohort's long duels cost no round of their own), and
a run counts the complete cohorts that come first: a cohort the deadline interrupts is dropped whole
(no bias towards short duels), except the first cohort of a run, and one with only its tail left
(at most :data:`TAIL_SHARE` of it), which complete alone past the deadline (tens of milliseconds).
Two distinct multisets share a hash with probability about 2⁻⁶⁴ per pair.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bot.rules.renove.simulation import MAX_DUELS, DuelSimulator, Tally, _Dist

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
Ints = npt.NDArray[np.signedinteger[Any]]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]

FIRST_BATCH: Final = 8_192
MIN_BATCH: Final = 2_048
TAIL_SHARE: Final = 0.05  # past the deadline, a cohort with this share left still completes
MAX_BATCH: Final = 65_536  # duels per cohort: at most about 1.25 cohorts run at once (memory)
ALIAS_MAX: Final = 4_000_000  # alias-table entries kept before the sampler's tables are rebuilt
INDEX_MAX: Final = 1_000_000  # entries of one hash index (states' profiles, tests …) likewise
_TAG: Final = 1 << 61  # packed keys are never 0 (the empty cell of an index)
_FIB: Final = 0x9E3779B97F4A7C15
_M64: Final = (1 << 64) - 1
_EFF_BITS: Final = 20
_QUIET: Final = -1
# tick codes per condition
_GONE: Final = 1  # the tick removes it
_PROMPTS: Final = 2  # the tick prompts a test or a death
_CHANGES: Final = 4  # the tick changes a per-row sum (effect or test pieces, out, death)
_UNKNOWN: Final = -128  # not ticked yet (the sign bit of the int8 code)
_DEATH: Final = -1  # prompt code: a death timer runs out


def numpy_seed(rng: random.Random) -> int:
    """A 64-bit seed for :func:`numpy.random.default_rng`, drawn from the request's generator."""
    return rng.getrandbits(64)


class Unsupported(Exception):
    """The fixed-width state cannot follow this matchup (a condition ticking into several)."""


class _Index:
    """int64 key (never 0) → int64 value, looked up for whole arrays (open addressing, linear probing)."""

    def __init__(self, bits: int = 10) -> None:
        self.bits = bits
        self.keys = np.zeros(1 << bits, dtype=np.int64)
        self.values = np.full(1 << bits, -1, dtype=np.int64)
        self.count = 0

    def _slot(self, key: int) -> int:
        return (((key & _M64) * _FIB) & _M64) >> (64 - self.bits)

    def get(self, keys: I64) -> I64:
        out = np.full(len(keys), -1, dtype=np.int64)
        if not len(keys) or not self.count:
            return out
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        mask = (1 << self.bits) - 1
        slot = ((keys.view(np.uint64) * np.uint64(_FIB)) >> np.uint64(64 - self.bits)).astype(np.int64)
        found = self.keys[slot]
        first = found == keys
        if first.all():  # the usual case at a load of at most 1/4
            return self.values[slot]
        pos = np.flatnonzero(~first)
        out[first] = self.values[slot[first]]
        keys, slot = keys[pos], slot[pos]
        while True:
            found = self.keys[slot]
            hit = found == keys
            out[pos[hit]] = self.values[slot[hit]]
            more = ~hit & (found != 0)
            if not more.any():
                return out
            pos, keys, slot = pos[more], keys[more], (slot[more] + 1) & mask

    def put(self, key: int, value: int) -> None:
        if 4 * (self.count + 1) > len(self.keys):
            old = [(int(k), int(v)) for k, v in zip(self.keys, self.values, strict=True) if k]
            self.bits += 1
            self.keys = np.zeros(1 << self.bits, dtype=np.int64)
            self.values = np.full(1 << self.bits, -1, dtype=np.int64)
            self.count = 0
            for k, v in old:
                self.put(k, v)
        mask = (1 << self.bits) - 1
        slot = self._slot(key)
        while True:
            found = int(self.keys[slot])
            if found == 0:
                self.keys[slot], self.values[slot] = key, value
                self.count += 1
                return
            if found == key:
                self.values[slot] = value
                return
            slot = (slot + 1) & mask


class _Alias:
    """Discrete distributions as alias tables (Vose) in flat arrays, drawn for many at once."""

    def __init__(self) -> None:
        self.prob = np.zeros(1024, dtype=np.float64)
        self.alias = np.zeros(1024, dtype=np.int64)
        self.payload = np.zeros(1024, dtype=np.int64)
        self.offset = np.zeros(64, dtype=np.int64)
        self.width = np.zeros(64, dtype=np.int64)
        self.size = 0
        self.count = 0

    def add(self, weights: Sequence[float], payloads: Sequence[int]) -> int:
        n = len(weights)
        total = float(sum(weights))
        if n == 0 or total <= 0:
            raise ValueError("empty distribution")
        scaled = [w * n / total for w in weights]
        prob = [1.0] * n
        alias = list(range(n))
        small = [i for i, p in enumerate(scaled) if p < 1.0]
        large = [i for i, p in enumerate(scaled) if p >= 1.0]
        while small and large:
            s, g = small.pop(), large[-1]
            prob[s], alias[s] = scaled[s], g
            scaled[g] -= 1.0 - scaled[s]
            if scaled[g] < 1.0:
                small.append(large.pop())
        start, end = self.size, self.size + n
        if end > len(self.prob):
            grow = max(end, 2 * len(self.prob))
            self.prob = np.resize(self.prob, grow)
            self.alias = np.resize(self.alias, grow)
            self.payload = np.resize(self.payload, grow)
        self.prob[start:end] = prob
        self.alias[start:end] = np.asarray(alias, dtype=np.int64) + start
        self.payload[start:end] = payloads
        if self.count >= len(self.offset):
            self.offset = np.resize(self.offset, 2 * len(self.offset))
            self.width = np.resize(self.width, 2 * len(self.width))
        self.offset[self.count], self.width[self.count] = start, n
        self.size = end
        self.count += 1
        return self.count - 1

    def weights(self, dist: int) -> dict[int, float]:
        """The probability of each payload of ``dist`` as the table draws it (for tests)."""
        start, n = int(self.offset[dist]), int(self.width[dist])
        out: dict[int, float] = {}
        for i in range(start, start + n):
            p = float(self.prob[i])
            for j, w in ((i, p), (int(self.alias[i]), 1.0 - p)):
                if w > 0:
                    key = int(self.payload[j])
                    out[key] = out.get(key, 0.0) + w / n
        return out

    def sample(self, dists: I64, u: F64) -> I64:
        width = self.width[dists]
        x = u * width
        i = np.minimum(x.astype(np.int64), width - 1)
        j = self.offset[dists] + i
        return self.payload[np.where(x - i < self.prob[j], j, self.alias[j])]


class _Accumulator:
    def __init__(self) -> None:
        self.duels = 0
        self.wins = [0, 0]
        self.rounds_total = 0
        self.first_sum = [0, 0]
        self.first_count = [0, 0]
        self.dead = 0
        self.criticals = np.zeros(2 * 256, dtype=np.int64)
        self.rounds: dict[int, int] = {}  # decided duels by their last round


class FastSampler:
    """Samples the duels of one :class:`DuelSimulator` with numpy: arrays of duels, round by round."""

    def __init__(self, simulator: DuelSimulator) -> None:
        self.sim = simulator
        self.rng = np.random.default_rng()
        self.rounds_histogram: dict[int, int] = {}
        self._rate = 0.0  # duels per second of the last run (sizes the first batch of the next)
        # the duels being sampled (see "one batch" below): cohorts of duels admitted together
        self.R = 0  # rounds played since the run began
        self.accs: list[_Accumulator] = []  # per cohort
        self.left: list[int] = []  # per cohort: duels still running
        self.sizes: list[int] = []  # per cohort: duels admitted
        self.born: I64 = np.zeros(0, dtype=np.int64)  # per duel: R when it was admitted
        self.cohort: I64 = np.zeros(0, dtype=np.int64)
        self.eff: I64 = np.zeros((0, 2), dtype=np.int64)
        self.first: I64 = np.zeros((0, 2), dtype=np.int64)
        self.he: U64 = np.zeros((0, 2), dtype=np.uint64)
        self.ht: U64 = np.zeros((0, 2), dtype=np.uint64)
        self.kn: I64 = np.zeros((0, 2), dtype=np.int64)
        self.de: I64 = np.zeros((0, 2), dtype=np.int64)
        self.erow: I32 = np.zeros(0, dtype=np.int32)
        self.ecid: I32 = np.zeros(0, dtype=np.int32)
        self.E = 0
        self.reset()

    # -- tables read from the simulator --------------------------------------------------------

    def reset(self) -> None:
        """Forget every table (they are rebuilt from the simulator on demand)."""
        salts = np.random.default_rng(0x5EED)  # fixed: the same tables whatever the request's seed
        self._salts = salts
        self._salt_eff = salts.integers(1, 1 << 63, size=2, dtype=np.uint64)
        self._salt_test = salts.integers(1, 1 << 63, size=2, dtype=np.uint64)
        self._piece_hash: dict[Any, int] = {None: 0}
        self._nhashed = 0
        self.next = np.zeros(1, dtype=np.int32)  # cid + 1 → cid + 1 after the tick (0: gone)
        self.prompt = np.zeros(1, dtype=np.int64)  # cid + 1 → prompted cid + 1, _DEATH, or 0
        self.code = np.zeros(1, dtype=np.int8)  # cid + 1 → _GONE | _PROMPTS | _CHANGES
        self.eff_hash = np.zeros(1, dtype=np.uint64)
        self.test_hash = np.zeros(1, dtype=np.uint64)
        self.dead = np.zeros(1, dtype=np.bool_)
        self.knocked = np.zeros(1, dtype=np.bool_)
        self._neff = 0
        self.out = np.ones(1, dtype=np.bool_)
        self.attacks = np.zeros(1, dtype=np.int64)
        self._effs = _Index()
        self._tests = _Index()
        self._ntests = 0
        self._round_table = np.full((64, 64), -1, dtype=np.int64)  # (eff a, eff b) → alias table
        self._attack = _Index()
        self._critical = _Index()
        self._pending = _Index()
        self.alias = _Alias()
        self._alias_of: dict[int, tuple[_Dist, int]] = {}
        self._oc_ids: dict[Any, int] = {}
        self._oc: list[Any] = []
        self._zones: dict[str, int] = {}
        self._oc_n = -1
        self._add_ids: dict[tuple[int, ...], int] = {(): 0}
        self._adds: list[tuple[int, ...]] = [()]
        self._adds_n = -1
        self._sl_ids: dict[tuple[tuple[int, int], ...], int] = {}
        self._sl: list[tuple[tuple[int, int], ...]] = []
        self._sl_n = -1

    def _phash(self, piece: Any) -> int:
        h = self._piece_hash.get(piece)
        if h is None:
            h = self._piece_hash[piece] = int(self._salts.integers(1, 1 << 63, dtype=np.uint64))
        return h

    def _sync(self) -> None:
        """Per-condition arrays for the conditions the simulator interned since the last call."""
        self._hash_conditions()

    def _tick(self, cids: I64) -> None:
        """The core's end-of-round tick of each of ``cids`` (``cid + 1``), read from the simulator.

        Read on demand, for the conditions of states at their end of round only: some chains (a
        bleeding test whose modifier grows every round) have no end.
        """
        sim = self.sim
        ticks = []
        for cell in cids.tolist():
            kept, due = sim._tick_of(cell - 1)  # may intern the successor
            if len(kept) > 1 or len(due) > 1:
                raise Unsupported(f"condition {cell - 1} ticks into {len(kept)} and prompts {len(due)}")
            prompt = 0
            if due:
                kind, prompted = due[0]
                prompt = _DEATH if kind == "death_timer_expired" else prompted + 1
            ticks.append((cell, kept[0] + 1 if kept else 0, prompt))
        self._hash_conditions()
        for cell, nxt, prompt in ticks:
            self.next[cell], self.prompt[cell] = nxt, prompt
            code = (_GONE if nxt == 0 else 0) | (_PROMPTS if prompt else 0)
            if any(a[nxt] != a[cell] for a in (self.eff_hash, self.test_hash, self.knocked, self.dead)):
                code |= _CHANGES
            self.code[cell] = code

    def _hash_conditions(self) -> None:
        sim = self.sim
        start, end = self._nhashed, len(sim._cond_list)
        if start == end:
            return
        if end + 1 > len(self.next):
            for name in ("next", "prompt", "code", "eff_hash", "test_hash", "dead", "knocked"):
                array = getattr(self, name)
                grown = np.zeros(max(end + 1, 2 * len(array)), dtype=array.dtype)
                grown[: len(array)] = array
                setattr(self, name, grown)
        self._nhashed = end
        self.code[start + 1 : end + 1] = _UNKNOWN
        for cid in range(start, end):
            self.eff_hash[cid + 1] = self._phash(sim._eff_piece[cid])
            self.test_hash[cid + 1] = self._phash(sim._test_piece[cid])
            kind = sim._cond_list[cid].kind
            self.dead[cid + 1] = cid == sim.dead_id or kind == "dead"
            # DuelSimulator._eff_of: out = Combatant.has("dead", "unconscious")
            self.knocked[cid + 1] = kind in ("dead", "unconscious")

    def _sync_effs(self) -> None:
        effs = self.sim._effs
        if self._neff != len(effs):
            if len(effs) >= 1 << _EFF_BITS:
                raise Unsupported("too many effective profiles")
            # the last entry is eff id -1: a state out of the fight (its profile is never needed)
            self.out = np.array([e.out for e in effs] + [True], dtype=np.bool_)
            self.attacks = np.array([e.attacks for e in effs] + [0], dtype=np.int64)
            self._neff = len(effs)

    def _alias_for(self, dist: _Dist, payload: Callable[[Any], int]) -> int:
        known = self._alias_of.get(id(dist))
        if known is not None and known[0] is dist:
            return known[1]
        weights = [w for w, _ in dist.pairs()]
        aid = self.alias.add(weights, [payload(item) for item in dist.items])
        self._alias_of[id(dist)] = (dist, aid)
        return aid

    def _outcome(self, outcome: Any) -> int:
        oid = self._oc_ids.get(outcome)
        if oid is None:
            oid = self._oc_ids[outcome] = len(self._oc)
            self._oc.append(outcome)
            self._zones.setdefault(outcome[6], len(self._zones))
        return oid

    def _outcome_arrays(self) -> None:
        if self._oc_n != len(self._oc):
            oc = self._oc
            self.o_event = np.array([o[0] for o in oc], dtype=np.bool_)
            self.o_hit = np.array([o[1] for o in oc], dtype=np.bool_)
            self.o_parry = np.array([o[2] for o in oc], dtype=np.int64)
            self.o_dodge = np.array([o[3] for o in oc], dtype=np.int64)
            self.o_value = np.array([o[4] or o[5] for o in oc], dtype=np.int64)
            self.o_zone = np.array([self._zones[o[6]] for o in oc], dtype=np.int64)
            if len(self._zones) > 255 or int(self.o_value.max(initial=0)) > 255:
                raise Unsupported("critical values or zones out of range")
            self._oc_n = len(oc)

    def _add(self, added: tuple[int, ...]) -> int:
        aid = self._add_ids.get(added)
        if aid is None:
            aid = self._add_ids[added] = len(self._adds)
            self._adds.append(added)
        return aid

    def _add_arrays(self) -> None:
        if self._adds_n != len(self._adds):
            adds = self._adds
            self.add_len = np.array([len(a) for a in adds], dtype=np.int64)
            self.add_off = np.concatenate([[0], np.cumsum(self.add_len)[:-1]]).astype(np.int64)
            flat = np.array([c + 1 for a in adds for c in a], dtype=np.int64)
            self.add_flat = flat
            owner = np.repeat(np.arange(len(adds)), self.add_len)
            # what an add changes in a row's sums (each row gets at most one add per call)
            self.add_eff = np.zeros(len(adds), dtype=np.uint64)
            self.add_test = np.zeros(len(adds), dtype=np.uint64)
            np.add.at(self.add_eff, owner, self.eff_hash[flat])
            np.add.at(self.add_test, owner, self.test_hash[flat])
            self.add_knocked = np.bincount(owner, self.knocked[flat], minlength=len(adds)).astype(np.int64)
            self.add_dead = np.bincount(owner, self.dead[flat], minlength=len(adds)).astype(np.int64)
            self._adds_n = len(adds)

    def _slot_list(self, slots: tuple[tuple[int, int], ...]) -> int:
        lid = self._sl_ids.get(slots)
        if lid is None:
            lid = self._sl_ids[slots] = len(self._sl)
            self._sl.append(slots)
        return lid

    def _slot_arrays(self) -> None:
        if self._sl_n != len(self._sl):
            width = max(len(s) for s in self._sl) + 1
            if width > 63 or len(self._sl) >= 1 << 14:
                raise Unsupported("too many attacks per round")
            self.sl_len = np.array([len(s) for s in self._sl], dtype=np.int64)
            self.sl_side = np.zeros((len(self._sl), width), dtype=np.int64)
            self.sl_k = np.zeros((len(self._sl), width), dtype=np.int64)
            for i, slots in enumerate(self._sl):
                for j, (s, k) in enumerate(slots):
                    self.sl_side[i, j], self.sl_k[i, j] = s, k
            self._sl_n = len(self._sl)

    @staticmethod
    def _lookup(index: _Index, keys: I64, build: Callable[[int, int], int]) -> I64:
        """``index[keys]``; a missing key is built once by ``build(key, position of a row)``."""
        ids = index.get(keys)
        miss = np.flatnonzero(ids < 0)
        if len(miss):
            unique, first = np.unique(keys[miss], return_index=True)
            for key, at in zip(unique.tolist(), miss[first].tolist(), strict=True):
                index.put(key, build(key, at))
            ids[miss] = index.get(keys[miss])
        return ids

    def profile_of(self, side: int, state: tuple[int, ...]) -> int:
        """The effective profile the sampler gives ``state`` (its hashes and tables; -1: out)."""
        self._sync()
        cells = np.array([c + 1 for c in state], dtype=np.int64)
        if self.knocked[cells].any():
            return -1
        h = self.eff_hash[cells].sum(dtype=np.uint64, keepdims=True) + self._salt_eff[side : side + 1]
        key = (h | np.uint64(1)).view(np.int64)
        eid = int(self._effs.get(key)[0])
        if eid < 0:
            eid = self.sim._eff_of(side, state)
            self._effs.put(int(key[0]), eid)
        return eid

    # -- the running duels ---------------------------------------------------------------------------
    #
    # Per duel (arrays of shape (n, 2), one column per side): the effective profile ``eff`` (-1 out),
    # the round of the first hit, and the sums over the side's conditions kept up to date as they
    # change: effect-piece hash, test-piece hash, conditions that put out / that are deaths.
    # The conditions themselves are a list of entries (row = 2 × duel + side, cid + 1), unordered.

    def _states(self, d: I64, side: I64) -> list[tuple[int, ...]]:
        """The simulator's state (sorted condition ids) of each (duel, side): one pass over entries."""
        rows = (2 * d + side).tolist()
        wanted = np.zeros(2 * len(self.eff), dtype=np.bool_)
        wanted[rows] = True
        e = self.E
        pick = np.flatnonzero(wanted[self.erow[:e]])
        found: dict[int, list[int]] = {}
        for row, cell in zip(self.erow[pick].tolist(), self.ecid[pick].tolist(), strict=True):
            found.setdefault(row, []).append(cell - 1)
        return [tuple(sorted(found.get(r, ()))) for r in rows]

    def _lookup_rows(
        self, index: _Index, keys: I64, d: I64, side: I64, build: Callable[[int, tuple[int, ...]], int]
    ) -> I64:
        """``index[keys]``; a missing key is built once from the state of one of its rows."""
        ids = index.get(keys)
        miss = np.flatnonzero(ids < 0)
        if len(miss):
            unique, first = np.unique(keys[miss], return_index=True)
            at = miss[first]
            states = self._states(d[at], side[at])
            for key, pos, state in zip(unique.tolist(), at.tolist(), states, strict=True):
                index.put(key, build(pos, state))
            ids[miss] = index.get(keys[miss])
        return ids

    def _eff_ids(self, d: I64, side: I64) -> I64:
        """The effective profile of each row (-1: out of the fight, the simulator's ``out``)."""
        ids = np.full(len(d), -1, dtype=np.int64)
        inside = np.flatnonzero(self.kn[d, side] == 0)
        if not len(inside):
            return ids
        d, side = d[inside], side[inside]
        keys = ((self.he[d, side] + self._salt_eff[side]) | np.uint64(1)).view(np.int64)

        def build(pos: int, state: tuple[int, ...]) -> int:
            return self.sim._eff_of(int(side[pos]), state)

        ids[inside] = self._lookup_rows(self._effs, keys, d, side, build)
        self._sync_effs()
        return ids

    def _test_ids(self, d: I64, side: I64) -> I64:
        keys = ((self.ht[d, side] + self._salt_test[side]) | np.uint64(1)).view(np.int64)

        def build(_key: int, _at: int) -> int:
            self._ntests += 1
            if self._ntests >= 1 << 40:
                raise Unsupported("too many test projections")
            return self._ntests - 1

        return self._lookup(self._tests, keys, build)

    def _append(self, d: I64, side: I64, adds: I64) -> I64:
        """Add the conditions of ``adds`` (one per row) to the rows; the positions that changed."""
        length = self.add_len[adds]
        changed = np.flatnonzero(length > 0)
        if not len(changed):
            return changed
        d, side, adds, length = d[changed], side[changed], adds[changed], length[changed]
        total = int(length.sum())
        e = self.E
        if e + total > len(self.erow):
            size = max(e + total, 2 * len(self.erow))
            self.erow = np.resize(self.erow, size)
            self.ecid = np.resize(self.ecid, size)
        starts = np.cumsum(length) - length
        cells = np.arange(total) + np.repeat(self.add_off[adds] - starts, length)
        self.erow[e : e + total] = np.repeat(2 * d + side, length)
        self.ecid[e : e + total] = self.add_flat[cells]
        self.E = e + total
        self.he[d, side] += self.add_eff[adds]
        self.ht[d, side] += self.add_test[adds]
        self.kn[d, side] += self.add_knocked[adds]
        self.de[d, side] += self.add_dead[adds]
        return changed

    def _finish(self, d: I64, winner: I64) -> None:
        """Tally duels ending now: ``winner`` 0/1, or 2 (both out) / -1 (rounds up) for a draw."""
        rounds = self.R - self.born[d]
        cohorts = self.cohort[d]
        for c in np.unique(cohorts).tolist():
            mine = cohorts == c
            dc, wc, rc = d[mine], winner[mine], rounds[mine]
            acc = self.accs[c]
            acc.duels += len(dc)
            self.left[c] -= len(dc)
            for side in (0, 1):
                won = wc == side
                acc.wins[side] += int(np.count_nonzero(won))
                if won.any():
                    acc.rounds_total += int(rc[won].sum())
                    for r, count in zip(*np.unique(rc[won], return_counts=True), strict=True):
                        acc.rounds[int(r)] = acc.rounds.get(int(r), 0) + int(count)
                    acc.dead += int(np.count_nonzero(self.de[dc[won], 1 - side]))
                first = self.first[dc, side]
                acc.first_sum[side] += int(first.sum())
                acc.first_count[side] += int(np.count_nonzero(first))

    def _keep(self, keep: npt.NDArray[np.bool_]) -> None:
        e = self.E
        rows = self.erow[:e]
        stay = np.flatnonzero(keep[rows >> 1])
        renumber = np.cumsum(keep) - 1
        rows = rows[stay]
        self.erow[: len(stay)] = 2 * renumber[rows >> 1] + (rows & 1)
        self.ecid[: len(stay)] = self.ecid[stay]
        self.E = len(stay)
        kept = np.flatnonzero(keep)
        self.eff, self.first = self.eff.take(kept, axis=0), self.first.take(kept, axis=0)
        self.he, self.ht = self.he.take(kept, axis=0), self.ht.take(kept, axis=0)
        self.kn, self.de = self.kn.take(kept, axis=0), self.de.take(kept, axis=0)
        self.born, self.cohort = self.born.take(kept), self.cohort.take(kept)

    def _criticals(self, d: I64, side: I64, oc: I64, alive: npt.NDArray[np.bool_]) -> I64:
        """Criticals dealt by ``side`` in duels ``d``; the positions whose victim is now out."""
        victim = 1 - side
        value, zone = self.o_value[oc], self.o_zone[oc]
        cohorts = self.cohort[d]
        for c in np.unique(cohorts).tolist():
            mine = cohorts == c
            self.accs[c].criticals += np.bincount(side[mine] * 256 + value[mine], minlength=512)
        tests = self._test_ids(d, victim)
        keys = _TAG | (victim << 56) | (value << 48) | (zone << 40) | tests

        def build(pos: int, state: tuple[int, ...]) -> int:
            o = self._oc[int(oc[pos])]
            dist = self.sim.critical_effect(int(victim[pos]), state, o[4] or o[5], o[6])
            return self._alias_for(dist, self._add)

        dists = self._lookup_rows(self._critical, keys, d, victim, build)
        self._sync()
        self._add_arrays()
        adds = self.alias.sample(dists, self.rng.random(len(d)))
        changed = self._append(d, victim, adds)
        if not len(changed):
            return changed
        dc, vc = d[changed], victim[changed]
        effs = self._eff_ids(dc, vc)
        self.eff[dc, vc] = effs
        gone = changed[self.out[effs]]
        if len(gone):
            self._finish(d[gone], side[gone])
            alive[d[gone]] = False
        return gone

    def _in_round(self, d: I64, code: I64, alive: npt.NDArray[np.bool_]) -> None:
        """From each duel's first event of the round (``code``) to the end of its round."""
        oc, lst, idx, fl = code >> 24, (code >> 10) & 0x3FFF, (code >> 4) & 0x3F, code & 0xF
        self._slot_arrays()
        sl_len, sl_side, sl_k = self.sl_len, self.sl_side, self.sl_k
        while len(d):
            self._outcome_arrays()
            side = sl_side[lst, idx]
            event = self.o_event[oc]
            if event.any():
                hit = np.flatnonzero(event & self.o_hit[oc])
                if len(hit):
                    dh, sh = d[hit], side[hit]
                    seen = self.first[dh, sh]
                    self.first[dh, sh] = np.where(seen == 0, self.R - self.born[dh], seen)
                crit = np.flatnonzero(self.o_value[oc] > 0)
                if len(crit):
                    gone = self._criticals(d[crit], side[crit], oc[crit], alive)
                    if len(gone):
                        keep = np.ones(len(d), dtype=np.bool_)
                        keep[crit[gone]] = False
                        d, lst, idx, fl = d[keep], lst[keep], idx[keep], fl[keep]
            # the next slot whose attacker may still attack
            idx = idx + 1
            while True:
                valid = idx < sl_len[lst]
                side, k = sl_side[lst, idx], sl_k[lst, idx]
                e_side = self.eff[d, side]
                skip = valid & (self.attacks[e_side] < k)
                if not skip.any():
                    break
                idx = idx + skip
            if not valid.all():
                d, lst, idx, fl = d[valid], lst[valid], idx[valid], fl[valid]
                side, k, e_side = side[valid], k[valid], e_side[valid]
            if not len(d):
                return
            e_other = self.eff[d, 1 - side]
            bit = np.where(side == 0, 2, 0)
            parry_free, dodge_free = (fl >> bit) & 1, (fl >> (bit + 1)) & 1
            keys = (
                _TAG
                | (side << 50)
                | (e_side << 30)
                | (e_other << 10)
                | (k << 2)
                | (parry_free << 1)
                | dodge_free
            )

            def build(key: int, _at: int) -> int:
                s, es, eo = (key >> 50) & 1, (key >> 30) & 0xFFFFF, (key >> 10) & 0xFFFFF
                kk, pf, df = (key >> 2) & 0xFF, bool(key & 2), bool(key & 1)
                return self._alias_for(self.sim.attack_distribution(s, es, eo, kk, pf, df), self._outcome)

            dists = self._lookup(self._attack, keys, build)
            oc = self.alias.sample(dists, self.rng.random(len(d)))
            self._outcome_arrays()
            fl = fl & ~((self.o_parry[oc] << bit) | (self.o_dodge[oc] << (bit + 1)))

    def _round_models(self, ea: I64, eb: I64) -> I64:
        """The alias table of each duel's round model (a dense table by the pair of profiles)."""
        table = self._round_table
        top = int(max(ea.max(initial=0), eb.max(initial=0)))
        if top >= len(table):
            size = max(top + 1, 2 * len(table))
            grown = np.full((size, size), -1, dtype=np.int64)
            grown[: len(table), : len(table)] = table
            table = self._round_table = grown
        ids = table[ea, eb]
        miss = np.flatnonzero(ids < 0)
        if len(miss):
            for x, y in set(zip(ea[miss].tolist(), eb[miss].tolist(), strict=True)):
                table[x, y] = self._round_model(x, y)
            ids = table[ea, eb]
        return ids

    def _round_model(self, ea: int, eb: int) -> int:
        model = self.sim.round_model(ea, eb)
        lists = (self._slot_list(model.slots[0]), self._slot_list(model.slots[1]))
        weights, payloads = [], []
        if model.quiet > 0:
            weights.append(model.quiet)
            payloads.append(_QUIET)
        if model.quiet < 1.0 and model.events.total > 0:
            scale = (1.0 - model.quiet) / model.events.total
            for w, (first, index, outcome, flags) in model.events.pairs():
                bits = flags[0] | (flags[1] << 1) | (flags[2] << 2) | (flags[3] << 3)
                oid = self._outcome(outcome)
                if oid >= 1 << 38:
                    raise Unsupported("too many attack outcomes")
                weights.append(w * scale)
                payloads.append((oid << 24) | (lists[first] << 10) | (index << 4) | bits)
        if not weights:
            weights, payloads = [1.0], [_QUIET]
        # the alias table replaces the simulator's copy (hundreds of Python tuples per pair of
        # profiles: most of the memory a long run leaves behind); the pure sampler rebuilds it
        self.sim._rounds.pop((ea, eb), None)
        return self.alias.add(weights, payloads)

    def _end_of_round(self) -> None:
        """Every condition ticks (the core's tick per condition); prompted tests roll in state order."""
        self._sync()
        e = self.E
        old = self.ecid[:e].copy()
        if len(self.code) > np.iinfo(np.int32).max:
            raise Unsupported("too many conditions")
        codes = self.code[old]
        if (codes < 0).any():
            self._tick(np.unique(old[codes < 0]))
            codes = self.code[old]
        new = self.next[old]
        rows = self.erow[:e]
        touched: list[Ints] = []
        changed = np.flatnonzero(codes & _CHANGES)
        if len(changed):
            r, o, n = rows[changed], old[changed], new[changed]
            np.add.at(self.he.reshape(-1), r, self.eff_hash[n] - self.eff_hash[o])
            np.add.at(self.ht.reshape(-1), r, self.test_hash[n] - self.test_hash[o])
            np.add.at(self.kn.reshape(-1), r, self.knocked[n].astype(np.int64) - self.knocked[o])
            np.add.at(self.de.reshape(-1), r, self.dead[n].astype(np.int64) - self.dead[o])
            touched.append(r)
        prompting = np.flatnonzero(codes & _PROMPTS)
        p_rows, p_old = rows[prompting], old[prompting]
        self.ecid[:e] = new
        if (codes & _GONE).any():
            stay = np.flatnonzero(new)
            self.erow[: len(stay)] = rows[stay]
            self.ecid[: len(stay)] = new[stay]
            self.E = len(stay)
        if len(prompting):
            self._prompts(p_rows, p_old)
            touched.append(p_rows)
        if touched:
            mark = np.zeros(2 * len(self.eff), dtype=np.bool_)
            for t in touched:
                mark[t] = True
            rows_touched = np.flatnonzero(mark)
            d, s = rows_touched >> 1, rows_touched & 1
            self.eff[d, s] = self._eff_ids(d, s)

    def _prompts(self, rows: Ints, old: Ints) -> None:
        """``DuelSimulator.advance``'s prompts: per row, in the order of the prompting conditions' ids."""
        order = np.lexsort((old, rows))
        rows, prompted = rows[order].astype(np.int64), self.prompt[old[order]]
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.append(starts, len(rows))))
        dead_add = self._add((self.sim.dead_id,))
        for r in range(int(rank.max()) + 1):
            at = np.flatnonzero(rank == r)
            dd, ss, p = rows[at] >> 1, rows[at] & 1, prompted[at]
            adds = np.full(len(at), dead_add, dtype=np.int64)
            tests = np.flatnonzero(p != _DEATH)
            if len(tests):
                dt, st, cids = dd[tests], ss[tests], p[tests] - 1
                if int(cids.max()) >= 1 << 24:
                    raise Unsupported("too many conditions")
                keys = _TAG | (st << 56) | (cids << 32) | self._test_ids(dt, st)

                def build(pos: int, state: tuple[int, ...], st: I64 = st, cids: I64 = cids) -> int:
                    dist = self.sim._pending_dist(int(st[pos]), int(cids[pos]), state)
                    return self._alias_for(dist, self._add)

                dists = self._lookup_rows(self._pending, keys, dt, st, build)
                adds[tests] = self.alias.sample(dists, self.rng.random(len(tests)))
            self._sync()
            self._add_arrays()
            self._append(dd, ss, adds)

    def _admit(self, n: int) -> None:
        """``n`` new duels at their start, as a new cohort (tallied together)."""
        sim = self.sim
        old = len(self.eff)
        cohort = len(self.accs)
        self.accs.append(_Accumulator())
        self.left.append(n)
        self.sizes.append(n)

        def grown(array: npt.NDArray[Any], fill: Any) -> npt.NDArray[Any]:
            extra = np.full((n, *array.shape[1:]), fill, dtype=array.dtype)
            return np.concatenate([array, extra])

        self.eff = grown(self.eff, 0)
        self.first, self.he, self.ht = grown(self.first, 0), grown(self.he, 0), grown(self.ht, 0)
        self.kn, self.de = grown(self.kn, 0), grown(self.de, 0)
        self.born, self.cohort = grown(self.born, self.R), grown(self.cohort, cohort)
        if self.E + 4 * n > len(self.erow):
            self.erow = np.resize(self.erow, self.E + 4 * n)
            self.ecid = np.resize(self.ecid, self.E + 4 * n)
        duels = np.arange(old, old + n, dtype=np.int64)
        for s in (0, 1):
            start = self._add(tuple(sim.start[s]))
            self._add_arrays()
            self._append(duels, np.full(n, s, dtype=np.int64), np.full(n, start, dtype=np.int64))
            self.eff[old:, s] = self._eff_ids(duels[:1], np.array([s]))[0]

    def _round(self) -> None:
        """One round of every duel in the arrays; the duels that end leave them."""
        self.R += 1
        alive = np.ones(len(self.eff), dtype=np.bool_)
        models = self._round_models(self.eff[:, 0], self.eff[:, 1])
        code = self.alias.sample(models, self.rng.random(len(models)))
        events = np.flatnonzero(code != _QUIET)
        if len(events):
            self._in_round(events, code[events], alive)
        # the duels ended by a critical are tallied already; they tick with the others (no effect
        # on the tally) and leave the arrays with the duels that end now
        self._end_of_round()
        out = self.out[self.eff]
        over = (out[:, 0] | out[:, 1]) & alive
        if over.any():
            o = out[over]
            winner = np.where(o[:, 1] & ~o[:, 0], 0, np.where(o[:, 0] & ~o[:, 1], 1, 2))
            self._finish(np.flatnonzero(over), winner)
            alive &= ~over
        late = alive & (self.R - self.born >= self.sim.options.max_rounds)
        if late.any():
            self._finish(np.flatnonzero(late), np.full(int(np.count_nonzero(late)), -1))
            alive &= ~late
        if not alive.all():
            self._keep(alive)

    def _merged(self) -> Tally:
        """The tally of the complete cohorts that come first (no bias towards short duels)."""
        tally = Tally()
        for acc, left in zip(self.accs, self.left, strict=True):
            if left:
                tally.stopped_by_time = True
                break
            tally.merge(self._tally(acc))
        return tally

    def _tally(self, acc: _Accumulator) -> Tally:
        for r, count in acc.rounds.items():
            self.rounds_histogram[r] = self.rounds_histogram.get(r, 0) + count
        tally = Tally()
        tally.duels = acc.duels
        tally.wins = list(acc.wins)
        tally.draws = acc.duels - acc.wins[0] - acc.wins[1]
        tally.rounds_total = acc.rounds_total
        tally.first_hit_sum = list(acc.first_sum)
        tally.first_hit_count = list(acc.first_count)
        for side in (0, 1):
            counts = acc.criticals[side * 256 : side * 256 + 256]
            tally.criticals[side] = {int(v): int(counts[v]) for v in np.flatnonzero(counts)}
        decided = acc.wins[0] + acc.wins[1]
        for reason, count in (("dead", acc.dead), ("unconscious", decided - acc.dead)):
            if count:
                tally.outs[reason] = count
        return tally

    # -- duels ------------------------------------------------------------------------------------

    def run(
        self,
        duels: int,
        seed: int | None = None,
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> Tally:
        """Sample ``duels`` duels (fewer if ``deadline``, a ``clock()`` value, passes first).

        Under a deadline the first batch always completes, even when the deadline has already
        passed: :data:`FIRST_BATCH` duels on a new sampler, else what the rate of its last run does
        in half the time left. Later batches take half the time left at the rate measured so far;
        none starts below :data:`MIN_BATCH`.
        """
        self.rng = np.random.default_rng(seed)
        self.rounds_histogram = {}  # of this run: decided duels by their last round
        started = clock()
        duels = max(0, min(duels, MAX_DUELS))
        indexes = (self._effs, self._tests, self._attack, self._critical, self._pending)
        if self.alias.size > ALIAS_MAX or max(i.count for i in indexes) > INDEX_MAX:
            self.reset()  # bounded memory: the tables are rebuilt from the simulator
        self._sync()
        self._start()
        admitted, size = 0, MAX_BATCH
        if deadline is not None:
            size = FIRST_BATCH
            if self._rate:
                size = int(min(MAX_BATCH, max(FIRST_BATCH, self._rate * (deadline - started) * 0.5)))
        prefix, done, done_at = 0, 0, started  # complete cohorts, their duels, when the last ended
        finishing = False
        while True:
            now = clock() if deadline is not None else 0.0
            while prefix < len(self.left) and not self.left[prefix]:
                done += self.accs[prefix].duels
                prefix, done_at = prefix + 1, now
            # a deadline passed before any duel (a cold sampler spent it building its tables) still
            # lets the first batch in: an answer never reports « 0 duels »
            late = deadline is not None and now > deadline and admitted > 0
            # past the deadline the oldest running cohort completes alone if only its tail is left
            # (or if it is the first); the others are dropped whole
            if (
                late
                and not finishing
                and prefix < len(self.left)
                and (prefix == 0 or self.left[prefix] <= TAIL_SHARE * self.sizes[prefix])
            ):
                self._keep(self.cohort == prefix)
                finishing, admitted = True, duels
            if late and not finishing:
                break
            # the next cohort joins the tail of the current one (at most two in flight)
            if admitted < duels and len(self.eff) <= size // 4 and len(self.left) - prefix <= 1:
                if deadline is not None and admitted:
                    finished = sum(a.duels for a in self.accs)
                    rate = (
                        done / max(done_at - started, 1e-9) if done else finished / max(now - started, 1e-9)
                    )
                    size = int(min(MAX_BATCH, rate * (deadline - now) * 0.5)) if rate else FIRST_BATCH
                    if size < min(MIN_BATCH, duels - admitted):  # it would end past the deadline
                        admitted = duels
                if admitted < duels:
                    size = min(size, duels - admitted)
                    self._admit(size)
                    admitted += size
            if not len(self.eff):
                break
            self._round()
        tally = self._merged()
        tally.stopped_by_time = tally.duels < duels
        tally.seconds = clock() - started
        if tally.duels and tally.seconds > 0:
            self._rate = tally.duels / tally.seconds
        return tally

    def _start(self) -> None:
        """Empty arrays: no duel, no cohort."""
        self.R = 0
        self.accs = []
        self.left = []
        self.sizes = []
        self.eff = np.zeros((0, 2), dtype=np.int64)
        self.first = np.zeros((0, 2), dtype=np.int64)
        self.he = np.zeros((0, 2), dtype=np.uint64)
        self.ht = np.zeros((0, 2), dtype=np.uint64)
        self.kn = np.zeros((0, 2), dtype=np.int64)
        self.de = np.zeros((0, 2), dtype=np.int64)
        self.born = np.zeros(0, dtype=np.int64)
        self.cohort = np.zeros(0, dtype=np.int64)
        self.erow = np.zeros(1024, dtype=np.int32)
        self.ecid = np.zeros(1024, dtype=np.int32)
        self.E = 0
