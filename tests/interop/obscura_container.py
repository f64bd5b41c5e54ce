"""A second, independent reader of the slot container, version 4 (docs/FORMAT.md §8),
written from the document alone.

It opens a vault directory's slot files with the outer key O and nothing else: derives
the subkeys (§8.3), opens both superblocks of every slot (§8.4), applies the agreement
rule and roll-forward of recovery (§8.8), walks and verifies every slot's block map
(§8.5) and reassembles each slot's inner stream (§8.9), or reads single logical blocks
of a slot of inner format 2 (§8.12), whose contents obscura_pages.py reads. It never writes: where a
recovering writer would repair (truncate a long file, remove a stray slot, re-seal a
rolled-forward superblock), it reads as if that had been done.
"""
import os
import re
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from obscura_reader import FormatError, hkdf_sha256

BLOCK = 4096
PAYLOAD = 4068
NONCE = 12
TAG = 16
FIRST_DATA = 2
MIN_BLOCKS = 256
MAX_BLOCKS = 1 << 31
REF = 24
FANOUT = 169
ROOT_REFS = 123
TRAILER_OFFSET = 4056
TRAILER = 12
MAX_DEPTH = 3
MAX_SLOTS = 64
VERSION = 4
INNER_FORMATS = {1, 2}  # §8.9 the version 3 slot as a stream, §8.12 commits of single blocks

# §8.3, given there in hex.
EXTRACT_SALT = bytes.fromhex("6f627363757261207634206f75746572")            # "obscura v4 outer"
SUPERBLOCK_INFO = bytes.fromhex("6f627363757261207634207375706572626c6f636b")  # "obscura v4 superblock"
BLOCK_INFO = bytes.fromhex("6f62736375726120763420626c6f636b")            # "obscura v4 block"
BLOCK_LABEL = bytes.fromhex("6f62737634626c6b")                             # "obsv4blk"
SUPERBLOCK_LABEL = bytes.fromhex("6f627376347362") + b"\x00"                # "obsv4sb" 00
INSTALL_LABEL = bytes.fromhex("6f62737634696e") + b"\x00"                   # "obsv4in" 00

KIND_DATA = 1
KIND_NODE = 2

# §8.1: a slot file's name, exactly; anything else in data/ is not a slot.
SLOT_NAME = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.db\.enc")
PENDING = ".pending-"


class OuterKeyMismatch(FormatError):
    """No superblock of any slot opens under the outer key (§8.8 R4)."""


class Rollback(FormatError):
    """The slots hold no commit in common, or a slot lacks a commit the others hold (§8.8)."""


class Damaged(FormatError):
    """A block, node or superblock fails, a field is out of range, a slot is missing or short."""


def slot_id(name: str) -> bytes:
    """§8.1: the 16 bytes of the UUID in `{uuid}.db.enc`, RFC 4122 order."""
    return bytes.fromhex(name[:36].replace("-", ""))


def superblock_key(outer: bytes, slot: bytes) -> bytes:
    return hkdf_sha256(outer, SUPERBLOCK_INFO + slot, salt=EXTRACT_SALT)


def block_key(outer: bytes, slot: bytes, generation: int) -> bytes:
    return hkdf_sha256(outer, BLOCK_INFO + slot + struct.pack(">I", generation), salt=EXTRACT_SALT)


def block_ad(directory: bytes, slot: bytes, position: int, generation: int, kind: int, level: int,
             logical_id: int) -> bytes:
    """§8.3: the 58 bytes of associated data of a data block or map node."""
    return BLOCK_LABEL + directory + slot + struct.pack(">IIBBQ", position, generation, kind, level, logical_id)


def superblock_ad(slot: bytes, position: int) -> bytes:
    """§8.3: the 25 bytes of associated data of superblock `position`."""
    return SUPERBLOCK_LABEL + slot + bytes([position])


def install_mark_ad(slot: bytes, position: int) -> bytes:
    """§8.6 "Adding slots": the 25 bytes of associated data of an install mark."""
    return INSTALL_LABEL + slot + bytes([position])


def map_shape(logical: int):
    """§8.5: node counts of levels 1 … d over L logical blocks, or None when d > 3."""
    if logical < 1:
        return None
    counts, below = [], logical
    while True:
        below = -(-below // FANOUT)
        counts.append(below)
        if below <= ROOT_REFS:
            break
    return counts if len(counts) <= MAX_DEPTH else None


def capacity(blocks: int) -> int:
    """§8.9: the largest L with 2·(L + M(L)) + 2 ≤ N."""
    best = 0
    low, high = 1, blocks // 2
    while low <= high:
        mid = (low + high) // 2
        shape = map_shape(mid)
        if shape is not None and 2 * (mid + sum(shape)) + 2 <= blocks:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


@dataclass
class Ref:
    position: int
    generation: int
    tag: bytes

    @staticmethod
    def parse(data: bytes, offset: int) -> "Ref":
        position, generation = struct.unpack(">II", data[offset:offset + 8])
        return Ref(position, generation, data[offset + 8:offset + 24])


@dataclass
class Superblock:
    directory_id: bytes
    sequence: int
    commit_id: bytes
    blocks: int
    generation: int
    oldest_generation: int
    sealed: int
    logical: int
    depth: int
    inner_format: int
    slots: list
    commit_time: int
    roots: list = field(default_factory=list)

    def shared(self):
        """Every field but the root references: what all slots of one commit share."""
        return (self.directory_id, self.sequence, self.commit_id, self.blocks, self.generation,
                self.oldest_generation, self.sealed, self.logical, self.depth, self.inner_format,
                tuple(self.slots), self.commit_time)


def parse_superblock(plain: bytes):
    """§8.4: the plaintext's fields, or None when any validity check fails."""
    if len(plain) != PAYLOAD:
        return None
    (version,) = struct.unpack(">I", plain[0:4])
    directory_id, commit_id = plain[4:20], plain[28:44]
    (sequence,) = struct.unpack(">Q", plain[20:28])
    blocks, generation, oldest = struct.unpack(">III", plain[44:56])
    sealed, logical = struct.unpack(">QQ", plain[56:72])
    depth, inner = plain[72], plain[73]
    (count,) = struct.unpack(">H", plain[74:76])
    (commit_time,) = struct.unpack(">Q", plain[4052:4060])
    if version != VERSION or inner not in INNER_FORMATS or any(plain[4060:4068]):
        return None
    if not 1 <= count <= MAX_SLOTS:
        return None
    slots = [plain[76 + 16 * i:92 + 16 * i] for i in range(count)]
    if any(a >= b for a, b in zip(slots, slots[1:])) or any(plain[76 + 16 * count:1100]):
        return None
    if not MIN_BLOCKS <= blocks <= MAX_BLOCKS or blocks & (blocks - 1):
        return None
    if generation < 1 or oldest < 1 or oldest not in (generation, generation - 1):
        return None
    shape = map_shape(logical)
    if shape is None or depth != len(shape) or logical + sum(shape) + FIRST_DATA > blocks:
        return None
    roots = [Ref.parse(plain, 1100 + REF * i) for i in range(shape[-1])]
    if any(plain[1100 + REF * len(roots):4052]):
        return None
    if any(not FIRST_DATA <= r.position < blocks for r in roots):
        return None
    return Superblock(directory_id, sequence, commit_id, blocks, generation, oldest, sealed, logical, depth,
                      inner, slots, commit_time, roots)


class Container:
    """The container in the directory `path`, opened with the 32-byte outer key."""

    def __init__(self, path: str, outer_key: bytes):
        self.outer = outer_key
        self.files = self._slot_files(path)
        if not self.files:
            raise Damaged("no slot files")
        self.valid = {slot: self._valid_superblocks(slot) for slot in self.files}
        if not any(self.valid.values()):
            raise OuterKeyMismatch("no superblock opens under this outer key")
        self.state, heads = self._agree()
        self.maps = {}
        self._roll_forward(heads)
        self._extra_slots()
        for slot in self.state.slots:
            if len(self.files[slot]) < self.state.blocks * BLOCK:
                raise Damaged("a slot file is shorter than its container")
            # Longer: a growth whose commit never became durable; a writer truncates.
            self.files[slot] = self.files[slot][:self.state.blocks * BLOCK]
        for slot in self.state.slots:
            if slot not in self.maps:
                self.maps[slot] = self._load_map(slot, heads[slot])
        layouts = {tuple((r.position, r.generation) for r in data + [n for level in nodes for n in level])
                   for data, nodes in self.maps.values()}
        if len(layouts) != 1:
            raise Damaged("the slots' maps disagree")

    @staticmethod
    def _slot_files(path: str) -> dict:
        names = sorted(os.listdir(path))
        present = {n for n in names if SLOT_NAME.fullmatch(n)}
        files = {}
        for name in present:
            with open(os.path.join(path, name), "rb") as f:
                files[slot_id(name)] = f.read()
        # §8.8 R1: whole pending installs count as their slot once some slot exists.
        for name in names:
            target = name[len(PENDING):]
            if name.startswith(PENDING) and SLOT_NAME.fullmatch(target) and present and target not in present:
                with open(os.path.join(path, name), "rb") as f:
                    files[slot_id(target)] = f.read()
        return files

    def _valid_superblocks(self, slot: bytes) -> list:
        """§8.4: the superblocks of `slot` that open, parse, sit at seq mod 2 and list the slot."""
        key = superblock_key(self.outer, slot)
        out = []
        for position in (0, 1):
            raw = self.files[slot][position * BLOCK:(position + 1) * BLOCK]
            if len(raw) != BLOCK:
                continue
            try:
                plain = AESGCM(key).decrypt(raw[:NONCE], raw[NONCE:], superblock_ad(slot, position))
            except InvalidTag:
                continue
            superblock = parse_superblock(plain)
            if superblock and superblock.sequence % 2 == position and slot in superblock.slots:
                out.append(superblock)
        return out

    def _holders(self, commit: Superblock) -> dict:
        heads = {}
        for slot in commit.slots:
            for superblock in self.valid.get(slot, []):
                if superblock.shared() == commit.shared():
                    heads[slot] = superblock
        return heads

    def _agree(self):
        """§8.8 R5: the newest commit every slot of its own slot set holds."""
        candidates = sorted((sb for sbs in self.valid.values() for sb in sbs), key=lambda sb: -sb.sequence)
        for candidate in candidates:
            heads = self._holders(candidate)
            if len(heads) != len(candidate.slots):
                continue
            newest = max(sb.sequence for slot in candidate.slots for sb in self.valid[slot])
            if newest > candidate.sequence + 1:
                raise Rollback("a slot is more than one commit ahead")
            return candidate, heads
        if any(slot not in self.valid for c in candidates for slot in c.slots):
            raise Damaged("a slot file is missing")
        raise Rollback("the slots hold no commit in common")

    def _roll_forward(self, heads: dict):
        """§8.8 R6: finish a commit whose superblocks reached only some slots."""
        newer = [sb for sbs in self.valid.values() for sb in sbs if sb.sequence == self.state.sequence + 1]
        if not newer:
            return
        commit = newer[0]
        if any(sb.shared() != commit.shared() for sb in newer):
            raise Damaged("two interrupted commits")
        holders = self._holders(commit)
        model = next(iter(holders.values()))
        for slot in commit.slots:
            if slot in holders:
                continue
            rebuilt = Superblock(**{**commit.__dict__, "roots": []})
            try:
                for index, root in enumerate(model.roots):
                    raw = self.files[slot][root.position * BLOCK:(root.position + 1) * BLOCK]
                    ref = Ref(root.position, root.generation, raw[-TAG:])
                    self._open_block(slot, ref, commit.directory_id, KIND_NODE, commit.depth, index)
                    rebuilt.roots.append(ref)
                # §8.8 R6: trailers are checked whatever the inner format, except on a node
                # the slot's map at S already references (inner format 2 keeps those).
                self.maps[slot] = self._load_map(slot, rebuilt, previous=self._load_map(slot, heads[slot]))
            except (FormatError, KeyError):
                raise Rollback("a slot lacks the blocks of a commit the others hold")
            holders[slot] = rebuilt
        for slot in commit.slots:
            if slot not in self.maps:
                self.maps[slot] = self._load_map(slot, holders[slot])
        heads.clear()
        heads.update(holders)
        self.state = commit

    def _extra_slots(self):
        """§8.8 R7: a slot file outside the agreed slot set must hold no commit at all, and
        an install mark; a writer then removes it."""
        for slot in list(self.files):
            if slot in self.state.slots:
                continue
            if self.valid[slot]:
                raise Damaged("a slot file outside the directory's slot set holds a commit")
            if not self._has_install_mark(slot):
                raise Damaged("a slot file that is not part of this directory")
            del self.files[slot]  # a writer removes it

    def _has_install_mark(self, slot: bytes) -> bool:
        """§8.6: either superblock position holds the slot's install mark."""
        key = AESGCM(superblock_key(self.outer, slot))
        for position in (0, 1):
            raw = self.files[slot][position * BLOCK:(position + 1) * BLOCK]
            try:
                key.decrypt(raw[:NONCE], raw[NONCE:], install_mark_ad(slot, position))
                return True
            except (InvalidTag, ValueError):
                continue
        return False

    def _open_block(self, slot: bytes, ref: Ref, directory: bytes, kind: int, level: int, logical_id: int) -> bytes:
        """§8.5: the block `ref` names must carry exactly its tag, then open under its AD."""
        raw = self.files[slot][ref.position * BLOCK:(ref.position + 1) * BLOCK]
        if len(raw) != BLOCK or raw[-TAG:] != ref.tag:
            raise Damaged("a block of a slot does not match its map")
        ad = block_ad(directory, slot, ref.position, ref.generation, kind, level, logical_id)
        try:
            return AESGCM(block_key(self.outer, slot, ref.generation)).decrypt(raw[:NONCE], raw[NONCE:], ad)
        except InvalidTag:
            raise Damaged("a block of a slot failed authentication")

    def _load_map(self, slot: bytes, superblock: Superblock, previous=None):
        """§8.5: every node from the roots down, tags and zero tails checked, and trailers
        in inner format 1 or, given `previous` (the slot's map at S), in a roll forward
        (§8.8 R6); returns (data references, [level-1 references, …, root references])."""
        shape = map_shape(superblock.logical)
        counts = [superblock.logical] + shape          # counts[h] = nodes of level h; counts[0] = L
        levels = [None] * (len(shape) + 1)
        levels[len(shape)] = superblock.roots
        for level in range(len(shape), 0, -1):
            below = []
            for index, ref in enumerate(levels[level]):
                if not FIRST_DATA <= ref.position < superblock.blocks:
                    raise Damaged("a map reference is out of range")
                payload = self._open_block(slot, ref, superblock.directory_id, KIND_NODE, level, index)
                children = min(FANOUT, counts[level - 1] - FANOUT * index)
                below += [Ref.parse(payload, REF * i) for i in range(children)]
                if any(payload[REF * children:TRAILER_OFFSET]):
                    raise Damaged("a map node has trailing bytes")
                checked = previous is not None or superblock.inner_format == 1
                unchanged = previous is not None and level - 1 < len(previous[1]) \
                    and index < len(previous[1][level - 1]) and previous[1][level - 1][index] == ref
                if checked and not unchanged and payload[TRAILER_OFFSET:] != superblock.commit_id[:TRAILER]:
                    raise Damaged("a map node is from another commit")
            levels[level - 1] = below
        data, nodes = levels[0], levels[1:]
        every = data + [r for level in nodes for r in level]
        positions = [r.position for r in every]
        if (any(not FIRST_DATA <= p < superblock.blocks for p in positions) or len(set(positions)) != len(positions)
                or any(not superblock.oldest_generation <= r.generation <= superblock.generation for r in every)):
            raise Damaged("a map reference is out of range")
        return data, nodes

    @property
    def slots(self) -> list:
        return self.state.slots

    def block(self, slot: bytes, j: int) -> bytes:
        """§8.5: logical block `j` of `slot`, verified against its reference."""
        data, _ = self.maps[slot]
        if not 0 <= j < len(data):
            raise Damaged("no such logical block")
        return self._open_block(slot, data[j], self.state.directory_id, KIND_DATA, 0, j)

    def stream(self, slot: bytes) -> bytes:
        """§8.9: logical blocks 0 … L − 1 of `slot`, each verified against its reference."""
        data, _ = self.maps[slot]
        return b"".join(self._open_block(slot, ref, self.state.directory_id, KIND_DATA, 0, j)
                        for j, ref in enumerate(data))
