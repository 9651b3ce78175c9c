"""CUDA arrays (__cuda_array_interface__: CuPy, PyTorch) sent as device
pictures. Skipped without cupy/torch, a GPU, or a CUDA-enabled library."""
import numpy as np
import pytest

import speedqa


def _device_module():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy", cupy
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            return "torch", torch
    except Exception:
        pass
    pytest.skip("neither cupy nor torch with a CUDA device is importable")


def _to_device(kind, mod, a):
    if kind == "cupy":
        return mod.asarray(a)
    t = mod.from_numpy(a.astype(np.int16) if a.dtype == np.uint16 else a)
    return t.cuda()


def test_cuda_arrays_equal_host(pair):
    kind, mod = _device_module()
    ref, dis = pair("444p8")
    v = speedqa.open_video(ref)
    vd = speedqa.open_video(dis)
    try:
        s = speedqa.Scorer(v.width, v.height, "444", 8, backend="cuda")
    except speedqa.Error as e:
        pytest.skip("no CUDA backend: %s" % e)
    host = speedqa.Scorer(v.width, v.height, "444", 8)
    got, want = [], []
    with s, host:
        for i in range(3):
            r, d = [np.array(p) for p in v.frame(i)], [np.array(p) for p in vd.frame(i)]
            want += host.send(r, d)
            got += s.send([_to_device(kind, mod, p) for p in r],
                          [_to_device(kind, mod, p) for p in d])
        want += host.flush()
        got += s.flush()
    assert [{k: x[k] for k in host.names} for x in got] == \
        [{k: x[k] for k in host.names} for x in want]


class FakeDeviceArray:
    """Only the interface: the library must see a SPEEDQA_MEM_CUDA picture."""
    def __init__(self, a):
        self._a = a
        self.__cuda_array_interface__ = {
            "shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
            "data": (a.ctypes.data, False), "version": 3, "stream": None}


def test_cuda_interface_reaches_library_as_device_memory():
    w, h = 256, 256
    planes = [np.zeros((h, w), np.uint8), np.zeros((h // 2, w // 2), np.uint8),
              np.zeros((h // 2, w // 2), np.uint8)]
    with speedqa.Scorer(w, h, "420", 8) as s:  # CPU backend: device memory is refused
        with pytest.raises(speedqa.Error) as e:
            s.send([FakeDeviceArray(planes[0])] + planes[1:], planes)
        assert "mixes" in e.value.message
        with pytest.raises(speedqa.Error) as e:
            s.send([FakeDeviceArray(p) for p in planes], [FakeDeviceArray(p) for p in planes])
        assert "memory" in e.value.message  # the library's own message
        with pytest.raises(speedqa.Error) as e:  # non-contiguous columns: no silent copy
            s.send([FakeDeviceArray(np.zeros((h, 2 * w), np.uint8)[:, ::2])] +
                   [FakeDeviceArray(p) for p in planes[1:]], planes)
        assert "contiguous" in e.value.message
