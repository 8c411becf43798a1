"""An import-time stand-in for `torch`: see ../conftest.py for why it exists."""
import abc as _abc
import importlib.machinery as _machinery
import sys as _sys
import types as _types


class _Meta(_abc.ABCMeta):
    """Stand-in classes: any attribute, index or union is another one;
    calling one on a single function returns it (decorators). An ABCMeta,
    so that classes deriving from a stand-in and from ABC can exist."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stand_in(name)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], type):
            return args[0]
        return super().__call__()

    def __getitem__(cls, key):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__

    def __iter__(cls):
        return iter(())

    def __bool__(cls):
        return False


class _StandIn(metaclass=_Meta):
    def __init__(self, *args, **kwargs):
        pass

    def __init_subclass__(cls, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stand_in(name)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _StandIn()

    def __contains__(self, item):
        return False

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __radd__(self, other):
        return other

    def __add__(self, other):
        return other

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _stand_in(name):
    return _Meta(name, (_StandIn,), {})


class _Module(_types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stand_in(name)
        setattr(self, name, value)
        return value


class _Finder:
    """Makes every `torch.x.y` submodule a stand-in too."""

    def find_spec(self, fullname, path, target=None):
        if fullname.startswith("torch."):
            return _machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


_sys.meta_path.insert(0, _Finder())
__path__ = []
__version__ = "2.14.0"
_sys.modules[__name__].__class__ = _Module
