# The zwc runtime core, embedded in sebx and written into every generated
# `zwc` package. It mirrors the observed behaviour of SE-Bench's real zwc
# package (NumPy 2.3.0, Python 3.11); see ZWC_RUNTIME.md in the project docs.
# The function tables are appended by sebx from the user's API mapping.

import numpy as _np

# NumPy method names whose AttributeError carries the "use the ZWC function"
# hint. The hint text is fixed in the real package, whatever the name.
_NUMPY_METHOD_NAMES = frozenset(
    [
        "mean", "std", "var", "sum", "min", "max", "argmin", "argmax", "sort",
        "argsort", "reshape", "flatten", "transpose", "dot", "clip", "round",
        "abs", "sqrt", "exp", "log", "sin", "cos", "cumsum", "cumprod", "diff",
        "gradient", "convolve", "correlate", "percentile", "median",
        "quantile", "unique", "nonzero", "where", "all", "any", "concatenate",
        "stack", "vstack", "hstack", "split", "hsplit", "vsplit", "roll",
        "shift", "pad", "repeat", "tile", "resize", "compress", "extract",
        "diagonal", "trace",
    ]
)

# Calls of zwc's functions. sebx's grading worker puts a counter of its own here (a page
# shared with every program it forks) and reads it after each program: the graded run's
# count, compared with the traced run's, shows a program that uses zwc only when watched.
_calls = [0]

# Attributes that pass through to the held NumPy array unchanged.
_PASSTHROUGH_ATTRIBUTES = frozenset(["shape", "dtype", "size", "ndim"])


def _unwrap_zwcarray(value):
    """A ZWCArray becomes its NumPy array; anything else is left alone."""
    if isinstance(value, ZWCArray):
        return value._data
    return value


def _wrap_numpy_result(value):
    """NumPy results as zwc hands them back (see the wrapping rules)."""
    if isinstance(value, _np.ndarray):
        return ZWCArray(value)
    if isinstance(value, (list, tuple)):
        if any(isinstance(item, _np.ndarray) for item in value):
            items = [_wrap_numpy_result(item) for item in value]
            if isinstance(value, tuple) and hasattr(value, "_fields"):
                return type(value)(*items)
            return type(value)(items)
        return value
    if isinstance(value, dict):
        return type(value)((key, _wrap_numpy_result(item)) for key, item in value.items())
    return value


class ZWCArray:
    """A NumPy array that refuses NumPy's methods."""

    def __init__(self, data):
        self._data = _np.asarray(data)

    def __getattr__(self, name):
        if name in _PASSTHROUGH_ATTRIBUTES:
            return getattr(self._data, name)
        if name == "T":
            return self._data.T
        if name in _NUMPY_METHOD_NAMES:
            raise AttributeError(
                f"ZWCArray has no attribute '{name}'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean()."
            )
        raise AttributeError(f"ZWCArray has no attribute '{name}'")

    def __array__(self):
        return self._data

    def __str__(self):
        return str(self._data)

    def __repr__(self):
        return f"ZWCArray({self._data.tolist()})"

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        # Iteration calls `.item()` on every element that is not an array, as the real
        # package does: the elements of a `dtype=object` array are plain Python objects
        # without it, so iterating one raises AttributeError there too.
        for item in self._data:
            if isinstance(item, _np.ndarray) and item.ndim > 0:
                yield ZWCArray(item)
            else:
                yield item.item()

    def __getitem__(self, key):
        return _zwcarray_element(self._data[_unwrap_zwcarray(key)])

    def __setitem__(self, key, value):
        self._data[_unwrap_zwcarray(key)] = _unwrap_zwcarray(value)

    def __add__(self, other):
        return ZWCArray(self._data + _unwrap_zwcarray(other))

    def __radd__(self, other):
        return ZWCArray(_unwrap_zwcarray(other) + self._data)

    def __sub__(self, other):
        return ZWCArray(self._data - _unwrap_zwcarray(other))

    def __rsub__(self, other):
        return ZWCArray(_unwrap_zwcarray(other) - self._data)

    def __mul__(self, other):
        return ZWCArray(self._data * _unwrap_zwcarray(other))

    def __rmul__(self, other):
        return ZWCArray(_unwrap_zwcarray(other) * self._data)

    def __truediv__(self, other):
        return ZWCArray(self._data / _unwrap_zwcarray(other))

    def __rtruediv__(self, other):
        return ZWCArray(_unwrap_zwcarray(other) / self._data)

    def __pow__(self, other):
        return ZWCArray(self._data ** _unwrap_zwcarray(other))

    def __rpow__(self, other):
        return ZWCArray(_unwrap_zwcarray(other) ** self._data)

    def __eq__(self, other):
        return ZWCArray(self._data == _unwrap_zwcarray(other))

    def __ne__(self, other):
        return ZWCArray(self._data != _unwrap_zwcarray(other))

    def __lt__(self, other):
        return ZWCArray(self._data < _unwrap_zwcarray(other))

    def __le__(self, other):
        return ZWCArray(self._data <= _unwrap_zwcarray(other))

    def __gt__(self, other):
        return ZWCArray(self._data > _unwrap_zwcarray(other))

    def __ge__(self, other):
        return ZWCArray(self._data >= _unwrap_zwcarray(other))

    # Defining __eq__ already makes the class unhashable; said out loud here.
    __hash__ = None


def _zwcarray_element(item):
    """An indexing or iteration result: ZWCArray with dimensions, else a Python scalar."""
    if isinstance(item, _np.ndarray) and item.ndim > 0:
        return ZWCArray(item)
    if isinstance(item, (_np.ndarray, _np.generic)):
        return item.item()
    return item


def _make_main_function(numpy_func_name):
    """`zwc.<name>`: unwrap top-level arguments, call NumPy, wrap the result."""

    def wrapper(*args, **kwargs):
        _calls[0] += 1
        unwrapped_args = [_unwrap_zwcarray(arg) for arg in args]
        unwrapped_kwargs = {key: _unwrap_zwcarray(arg) for key, arg in kwargs.items()}
        result = getattr(_np, numpy_func_name)(*unwrapped_args, **unwrapped_kwargs)
        return _wrap_numpy_result(result)

    return wrapper


def _make_linalg_function(numpy_func_name):
    """`zwc.rfx.<name>`: call numpy.linalg as given and return its result unwrapped."""

    def wrapper(*args, **kwargs):
        _calls[0] += 1
        return getattr(_np.linalg, numpy_func_name)(*args, **kwargs)

    return wrapper


def _install_functions(namespace, table, make):
    for zwc_name, numpy_name in table.items():
        namespace[zwc_name] = make(numpy_name)
