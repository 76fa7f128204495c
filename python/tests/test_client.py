"""devtcp.Client, Chunk, Stream over the fake C layer (no server)."""
import ctypes
import errno
import gc
import threading

import pytest

import devtcp
from devtcp import _capi
from fakecapi import SCRIBBLE, FakeApi, pattern

np = pytest.importorskip("numpy")


def client(fake, **kw):
    return devtcp.Client("/fake.sock", 5001, api=fake, **kw)


def one_stream(fake, n=5000, chunk=1000, sid=1, **kw):
    fake.open(sid, **kw)
    fake.data(sid, pattern(0, n), chunk)
    fake.fin(sid)


def test_attach_properties_and_refusal():
    f = FakeApi(region_size=4096)
    with client(f) as c:
        assert c.client_id == 7 and c.nb_stacks == 1 and c.ring_size == 64
        assert c.mem == "cpu" and c.device == (1, 0) and c.region_len == 4096
        assert c.torch_device == "cpu"
        assert "attached" in repr(c)
    assert f.detached and c.closed
    with pytest.raises(devtcp.AttachError) as ei:
        client(FakeApi(refuse=errno.EUSERS))
    assert ei.value.errno == errno.EUSERS and ei.value.refused


def test_poll_chunk_fields_and_release_once():
    f = FakeApi()
    one_stream(f, n=2500)
    with client(f) as c:
        chunks = c.poll(64)
        assert [ch.kind for ch in chunks] == ["open", "data", "data", "data",
                                              "fin"]
        o = chunks[0]
        assert o.stream == 1 and o.peer_port == 40001 and o.local_port == 5001
        d = chunks[1:4]
        assert [ch.len for ch in d] == [1000, 1000, 500]
        assert d[0].offset == 0 and not d[0].host and d[0].released is False
        assert d[0].tobytes() == pattern(0, 1000)
        assert len(f.held) == 3
        d[0].release()
        d[0].release()
        c.release(d)           # d[0] skipped, d[1], d[2] in one batch
        c.release(d)
        assert f.bad_releases == [] and len(f.released) == 3
        assert chunks[0].released and chunks[4].released  # no token
        with pytest.raises(BufferError):
            d[0].__dlpack__()


def test_dlpack_device_cpu_and_cuda():
    f = FakeApi()
    one_stream(f, n=10)
    f.open(2)
    f.data(2, b"hdr", host=True)
    with client(f) as c:
        chunks = c.poll()
        assert chunks[1].__dlpack_device__() == (1, 0)
        assert chunks[4].host and chunks[4].__dlpack_device__() == (1, 0)
    g = FakeApi(mem=_capi.MEM_CUDA, cuda_device=3)
    one_stream(g, n=10)
    g.open(2)
    g.data(2, b"hdr", host=True)
    with client(g) as c:
        chunks = c.poll()
        assert c.device == (2, 3) and c.torch_device == "cuda:3"
        assert chunks[1].__dlpack_device__() == (2, 3)
        assert chunks[4].__dlpack_device__() == (1, 0)
        # numpy needs CPU bytes: a CUDA chunk goes through the CPU alias
        assert bytes(chunks[1].numpy()) == pattern(0, 10)
        with pytest.raises(BufferError):
            chunks[1].__dlpack__(dl_device=(1, 0))
        cap = chunks[1].__dlpack__(dl_device=(1, 0), copy=True)
        del cap
        c.release(chunks)
    assert g.bad_releases == []


def test_numpy_view_keeps_token_until_freed():
    f = FakeApi()
    one_stream(f, n=3000)
    with client(f) as c:
        ch = c.poll()[1]
        a = np.from_dlpack(ch)
        assert not a.flags.writeable
        assert bytes(a) == pattern(0, 1000)
        ch.release()                   # the view still holds the bytes
        c.poll()
        assert (0, ch.token) in f.held
        assert bytes(a) == pattern(0, 1000)
        del a
        gc.collect()
        assert (0, ch.token) in f.held      # queued, not yet given back
        c.poll()                            # the poll thread flushes
        assert (0, ch.token) not in f.held
        assert f.bad_releases == []
        ch.release()
        assert f.bad_releases == []


def test_torch_view_and_chunk_release_order():
    torch = pytest.importorskip("torch")
    f = FakeApi()
    one_stream(f, n=3000)
    with client(f) as c:
        chunks = c.poll()
        t = torch.from_dlpack(chunks[1])
        u = chunks[2].torch()
        assert t.device.type == "cpu" and t.dtype == torch.uint8
        assert bytes(t.numpy()) == pattern(0, 1000)
        assert bytes(u.numpy()) == pattern(1000, 1000)
        del t, u
        gc.collect()
        c.flush()
        assert len(f.released) == 0       # the Chunk objects still hold
        c.release(chunks)
        assert len(f.released) == 3 and f.bad_releases == []


def test_never_consumed_capsule_gives_token_back():
    f = FakeApi()
    one_stream(f, n=1000)
    with client(f) as c:
        ch = c.poll()[1]
        cap = ch.__dlpack__()
        cap2 = ch.__dlpack__(max_version=(1, 0))
        assert c.stats().exported == 2
        ch.release()
        del cap
        gc.collect()
        c.flush()
        assert len(f.released) == 0
        del cap2
        gc.collect()
        assert c.stats().exported == 0
        c.flush()
        assert len(f.released) == 1 and f.bad_releases == []


def test_deleter_on_other_thread_is_flushed_by_poll_thread():
    f = FakeApi()
    one_stream(f, n=4000)
    with client(f) as c:
        chunks = [ch for ch in c.poll() if ch.kind == "data"]
        views = [np.from_dlpack(ch) for ch in chunks]
        c.release(chunks)
        assert f.released == []
        th = threading.Thread(target=views.clear)
        th.start()
        th.join()
        gc.collect()
        assert f.released == []           # nothing called from that thread
        assert c.stats().queued == 4
        c.poll()
        assert len(f.released) == 4
        assert f.release_threads == {threading.get_ident()}


def test_dropped_chunk_objects_give_back():
    f = FakeApi()
    one_stream(f, n=4000)
    with client(f) as c:
        c.poll()        # chunks dropped at once
        gc.collect()
        c.flush()
        assert len(f.released) == 4 and f.bad_releases == []


def test_released_bytes_are_reused():
    """The fake scribbles over given-back bytes: what the package calls a
    held view really is one until its token goes back."""
    f = FakeApi()
    one_stream(f, n=1000)
    with client(f) as c:
        ch = c.poll()[1]
        addr = ch.addr
        ch.release()
        assert ctypes.string_at(addr, 4) == bytes([SCRIBBLE]) * 4


def test_detach_waits_for_exports():
    f = FakeApi()
    one_stream(f, n=2000)
    c = client(f)
    ch = c.poll()[1]
    a = np.from_dlpack(ch)
    del ch
    c.detach()
    assert c.closed and not f.detached     # the view keeps the mapping
    assert bytes(a) == pattern(0, 1000)
    del a
    gc.collect()
    assert f.detached and f.bad_releases == []


def test_streams_and_chunks_in_order():
    f = FakeApi()
    f.open(1)
    f.open(2)
    for i in range(5):     # interleaved
        f.data(1, pattern(i * 700, 700), 700)
        f.data(2, pattern(i * 300, 300), 300)
    f.fin(1)
    f.reset(2, errno.ECONNRESET)
    with client(f) as c:
        ss = list(c.streams(timeout=0.2))
        assert [s.id for s in ss] == [1, 2]
        assert ss[0].peer == ("10.0.0.2", 40001)
        got = b"".join(ch.tobytes() for ch in ss[0].chunks())
        assert got == pattern(0, 3500) and ss[0].state == "fin"
        with pytest.raises(devtcp.StreamReset) as ei:
            for ch in ss[1].chunks():
                pass
        assert ei.value.errno == errno.ECONNRESET
        assert ss[1].ended
        ch = None
        gc.collect()
        c.flush()
        assert len(f.held) == 0 and f.bad_releases == []


def test_quota_exhausted_is_detected():
    f = FakeApi(ring_size=4)
    f.open(1)
    f.open(2)
    f.data(1, pattern(0, 4000), 1000)   # fills the quota
    f.data(2, pattern(0, 1000), 1000)
    with client(f) as c:
        s1, s2 = list(c.streams(timeout=0.05))
        with pytest.raises(devtcp.QuotaExhausted):
            next(s2.chunks(timeout=1))
        # consuming stream 1 frees the quota
        n = 0
        for ch in s1.chunks(timeout=0.1):
            n += ch.len
            ch.release()
        assert n == 4000
        assert next(s2.chunks(timeout=1)).tobytes() == pattern(0, 1000)


def test_read_into_numpy_spans_chunks():
    f = FakeApi()
    one_stream(f, n=10000, chunk=1448)
    with client(f) as c:
        s = next(c.streams(timeout=0.1))
        out = np.zeros(3000, dtype=np.uint8)
        assert s.read_into(out) == 3000
        assert bytes(out) == pattern(0, 3000)
        assert s.read_into(out) == 3000
        assert bytes(out) == pattern(3000, 3000)
        big = np.zeros(1000, dtype=np.uint32)      # 4000 bytes, any dtype
        assert s.read_into(big) == 4000
        assert big.tobytes() == pattern(6000, 4000)
        assert s.read_into(out) == 0 and s.ended
        gc.collect()
        c.flush()
        assert len(f.held) == 0 and f.bad_releases == []


def test_read_into_torch_cpu_and_host_chunks():
    torch = pytest.importorskip("torch")
    f = FakeApi()
    f.open(1)
    f.data(1, pattern(0, 100), host=True)          # a host (linear) chunk
    f.data(1, pattern(100, 5000), 1000)
    f.fin(1)
    with client(f) as c:
        s = next(c.streams(timeout=0.1))
        out = torch.zeros(2, 1024, dtype=torch.uint8)
        assert s.read_into(out) == 2048
        assert bytes(out.flatten().numpy()) == pattern(0, 2048)
        rest = torch.zeros(10000, dtype=torch.uint8)
        assert s.read_into(rest) == 5100 - 2048
        assert bytes(rest[:3052].numpy()) == pattern(2048, 3052)
        c.flush()
        assert len(f.held) == 0 and f.bad_releases == []


def test_read_into_waits_when_quota_is_small():
    """A destination bigger than the quota: copied in batches, no stall."""
    f = FakeApi(ring_size=3)
    one_stream(f, n=20000, chunk=1000)
    with client(f) as c:
        s = next(c.streams(timeout=0.1))
        out = np.zeros(20000, dtype=np.uint8)
        assert s.read_into(out, timeout=2) == 20000
        assert bytes(out) == pattern(0, 20000)


def test_read_and_sha256_without_numpy_paths():
    import hashlib
    f = FakeApi()
    one_stream(f, n=7000)
    one_stream(f, n=3000, sid=2)
    with client(f) as c:
        a, b = list(c.streams(timeout=0.1))
        assert a.read(1500) == pattern(0, 1500)
        assert a.read() == pattern(1500, 5500)
        assert b.sha256() == (3000, hashlib.sha256(pattern(0, 3000)).hexdigest())


def test_server_gone_ends_iteration():
    f = FakeApi()
    f.shutdown = True
    with client(f) as c:
        assert list(c.streams()) == []
        assert c.server_gone


def test_read_into_bulk_bursts():
    """Bursts of the read stream's chunks stay C structs (no Chunk object
    each): a stream of 3000 chunks read in odd sizes, another stream's
    chunks interleaved now and then, everything given back once."""
    f = FakeApi(region_size=8 << 20, ring_size=1024)
    f.open(1)
    f.open(2)
    payload = pattern(0, 3000 * 1448)
    for i in range(0, len(payload), 1448 * 500):
        f.data(1, payload[i:i + 1448 * 500], 1448)
        f.data(2, pattern(i // 100, 1000), 1000)
    f.fin(1)
    f.fin(2)
    with client(f) as c:
        s1 = next(c.streams(timeout=0.1))
        at = 0
        for size in (1, 1447, 1449, 100000, 777777, 4 << 20):
            out = np.zeros(size, dtype=np.uint8)
            n = s1.read_into(out, timeout=1)
            assert bytes(out[:n]) == payload[at:at + n]
            at += n
        assert at == len(payload) and s1.ended
        s2 = next(c.streams(timeout=0.1))
        assert sum(ch.len for ch in s2.chunks()) == 6000
        gc.collect()
        c.flush()
        assert len(f.held) == 0 and f.bad_releases == []
        assert len(f.released) == 3000 + 6


def test_read_into_then_chunks_expands_bulk():
    f = FakeApi(region_size=4 << 20, ring_size=2048)
    f.open(1)
    f.data(1, pattern(0, 1000), 1000)
    f.fin(1)
    f.open(2)
    f.data(2, pattern(0, 1000 * 600), 1000)
    f.fin(2)
    with client(f) as c:
        ss = list(c.streams(timeout=0.1))
        s2 = ss[1]
        out = np.zeros(256 * 1000 + 500, dtype=np.uint8)
        # the first 254 chunks came with the OPENs; the rest in one bulk
        assert s2.read_into(out) == out.shape[0]
        assert bytes(out) == pattern(0, out.shape[0])
        assert s2.read(500) == pattern(out.shape[0], 500)   # a cut entry
        rest = b"".join(ch.tobytes() for ch in s2.chunks())
        assert rest == pattern(257000, 600000 - 257000)
        gc.collect()
        c.flush()
        for ch in ss[0].chunks():
            ch.release()
        assert len(f.held) == 0 and f.bad_releases == []
