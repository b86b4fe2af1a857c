"""kbx's dtype names and torch's, and engine device buffers wrapped as torch tensors.

A buffer is wrapped without copying: an object exposing __cuda_array_interface__ for its bytes
(u8, which every consumer understands), handed to torch.as_tensor, then viewed as the task's
dtype (bf16, c64 and bool have no portable typestr) and shaped. Zero-element buffers become
empty tensors (their address may be 0); a 0-d shape [] is one element.
"""

# kbx name -> (torch attribute, bytes per element)
DTYPES = {
    "f32": ("float32", 4), "f64": ("float64", 8), "f16": ("float16", 2), "bf16": ("bfloat16", 2),
    "i8": ("int8", 1), "u8": ("uint8", 1), "i16": ("int16", 2), "i32": ("int32", 4),
    "i64": ("int64", 8), "bool": ("bool", 1), "c64": ("complex64", 8),
}


def itemsize(name):
    return DTYPES[name][1]


def torch_dtype(torch, name):
    if name not in DTYPES:
        raise ValueError(f"unknown dtype '{name}'")
    return getattr(torch, DTYPES[name][0])


def kbx_name(torch_dtype_obj):
    """'f32' for torch.float32; the torch name for a dtype kbx does not have."""
    text = str(torch_dtype_obj).replace("torch.", "")
    for k, (attr, _) in DTYPES.items():
        if attr == text:
            return k
    return text


def torch_name(torch_dtype_obj):
    return str(torch_dtype_obj).replace("torch.", "")


def numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


class DeviceBytes:
    """`nbytes` bytes of device memory at `ptr`, as the CUDA array interface describes them."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {
            "shape": (int(nbytes),), "typestr": "|u1", "data": (int(ptr), False), "strides": None,
            "version": 2,
        }


def wrap(torch, ptr, name, shape, device):
    """A torch tensor of kbx dtype `name` and `shape` aliasing device memory at ptr."""
    dt = torch_dtype(torch, name)
    shape = tuple(int(s) for s in shape)
    n = numel(shape)
    dev = torch.device("cuda", int(device))
    if n == 0 or not ptr:
        if n != 0:
            raise ValueError(f"buffer of {n} elements at address 0")
        return torch.empty(shape, dtype=dt, device=dev)
    raw = torch.as_tensor(DeviceBytes(ptr, n * itemsize(name)), device=dev)
    return raw.view(dt).reshape(shape)
