"""kDLCUDA chunks on a real GPU, with a fake server whose region is a CUDA
allocation of this process (the shape a CUDA IPC mapping has): DLPack
export to torch, read_into a CUDA tensor, the dataset on the device, and
tokens that go back only once the GPU is done (events). Skips without
CUDA."""
import gc
import time

import pytest

import devtcp
from devtcp import _capi
from fakecapi import FakeApi, pattern

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device")


class FakeCudaApi(FakeApi):
    def __init__(self, size=1 << 22, **kw):
        super().__init__(region_size=4096, mem=_capi.MEM_CUDA,
                         cuda_device=torch.cuda.current_device(), **kw)
        self.dev_region = torch.zeros(size, dtype=torch.uint8, device="cuda")
        self.base = self.dev_region.data_ptr()
        self.size = size

    def data(self, stream, payload, chunk=1000, stack=0, host=False):
        assert not host
        for i in range(0, len(payload), chunk):
            piece = payload[i:i + chunk]
            n = len(piece)
            if self.at + n > self.size:
                self.at = 0
            off = self.at
            self.at += (n + 255) & ~255
            self.dev_region[off:off + n].copy_(
                torch.tensor(list(piece), dtype=torch.uint8))
            tok = self.next_token
            self.next_token += 1
            self._push(stack, stream=(stack << 32) | stream,
                       kind=_capi.DATA, addr=self.base + off, offset=off,
                       len=n, host=False, token=tok)
        torch.cuda.synchronize()

    def release(self, handle, chunks, n):
        # scribble on the GPU, as the NIC would write into a reused buffer
        for i in range(n):
            c = self.held.get((int(chunks[i].stack), int(chunks[i].token)))
            if c is not None:
                self.dev_region[c.offset:c.offset + c.len].fill_(0xEE)
        self.release_threads.add(0)
        rc = 0
        for i in range(n):
            key = (int(chunks[i].stack), int(chunks[i].token))
            if self.held.pop(key, None) is None:
                self.bad_releases.append(key)
                rc = -22
            else:
                self.released.append(key)
        return rc

    def cpu_alias(self, handle):
        return None


def settle(c, f, want, timeout=10):
    end = time.time() + timeout
    while len(f.released) < want and time.time() < end:
        gc.collect()
        c.flush()
        time.sleep(0.01)


def test_torch_from_dlpack_cuda_chunk():
    f = FakeCudaApi()
    f.open(1)
    f.data(1, pattern(0, 3000), 1000)
    f.fin(1)
    with devtcp.Client("/fake", 5001, api=f) as c:
        assert c.device == (2, torch.cuda.current_device())
        chunks = [ch for ch in c.poll() if ch.kind == "data"]
        ts = [torch.from_dlpack(ch) for ch in chunks]
        for i, t in enumerate(ts):
            assert t.is_cuda and t.dtype == torch.uint8
            assert bytes(t.cpu().numpy()) == pattern(i * 1000, 1000)
        s = sum(int(t.to(torch.int64).sum()) for t in ts)
        assert s == sum(pattern(0, 3000))
        with pytest.raises(BufferError):
            chunks[0].numpy()       # no CPU alias: torch only
        c.release(chunks)
        assert f.released == []     # the tensors hold them
        del ts, t
        settle(c, f, 3)
        assert len(f.released) == 3 and f.bad_releases == []


def test_read_into_cuda_tensor_fenced():
    f = FakeCudaApi()
    f.open(1)
    f.data(1, pattern(0, 50000), 1448)
    f.fin(1)
    with devtcp.Client("/fake", 5001, api=f) as c:
        s = next(c.streams(timeout=1))
        out = torch.empty(20000, dtype=torch.uint8, device="cuda")
        assert s.read_into(out) == 20000
        assert bytes(out.cpu().numpy()) == pattern(0, 20000)
        big = torch.empty(40000, dtype=torch.uint8, device="cuda")
        assert s.read_into(big) == 30000
        assert bytes(big[:30000].cpu().numpy()) == pattern(20000, 30000)
        settle(c, f, 35)
        assert len(f.released) == 35 and f.bad_releases == []


def test_record_dataset_on_the_device():
    f = FakeCudaApi()
    f.open(1)
    f.data(1, pattern(0, 64000), 1448)
    f.fin(1)
    f.shutdown = True
    ds = devtcp.RecordDataset("/fake", 5001, 4000, batch_size=4, api=f)
    rows = []
    for b in ds:
        assert b.is_cuda and b.shape == (4, 4000)
        rows.extend(bytes(r.cpu().numpy()) for r in b)
    assert rows == [pattern(i * 4000, 4000) for i in range(16)]


def test_read_into_cuda_bulk_gather():
    """Bursts kept as C structs: the GPU gather (repeat_interleave +
    index_select) fills CUDA tensors and a CPU tensor byte-exact, and every
    token comes back after the event."""
    f = FakeCudaApi(size=16 << 20, ring_size=4096)
    f.open(1)
    payload = pattern(0, 3000 * 1448)
    f.data(1, payload, 1448)
    f.fin(1)
    with devtcp.Client("/fake", 5001, api=f) as c:
        s = next(c.streams(timeout=1))
        at = 0
        for size, dev in ((1000, "cuda"), (1 << 20, "cuda"), (777777, "cpu"),
                          (8 << 20, "cuda")):
            out = torch.empty(size, dtype=torch.uint8, device=dev)
            n = s.read_into(out)
            assert bytes(out[:n].cpu().numpy()) == payload[at:at + n]
            at += n
        assert at == len(payload) and s.ended
        settle(c, f, 3000)
        assert len(f.released) == 3000 and f.bad_releases == []
