"""The exceptions coreset raises.

Every error the engine reports on purpose is a :class:`CoresetError`; each kind also derives from
the built-in exception a Python caller would catch for it, so ``except ValueError`` works for bad
arguments and bad data alike. Messages name the argument (by its keyword) and what was expected.
"""

import re

__all__ = [
    "CoresetError",
    "InvalidArgumentError",
    "InputError",
    "NumericalError",
    "OutputError",
    "DeviceError",
    "TargetNotReachedError",
]


# The library names options as the command's flags ("--max-iter must be >= 1"); from Python they
# are keywords ("max_iter must be >= 1").
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def keyword_message(message):
    """The library's message with each command-line flag written as its Python keyword."""
    return _FLAG.sub(lambda match: match.group(1).replace("-", "_"), message)


class CoresetError(Exception):
    """Base of every error coreset raises on purpose."""

    def __init__(self, message="", *args):
        super().__init__(keyword_message(str(message)), *args)


class InvalidArgumentError(CoresetError, ValueError):
    """An argument is outside its domain or arguments do not fit together (the message names
    the keyword and the value); the command exits with code 2 for the same error."""


class InputError(CoresetError, ValueError):
    """The data are malformed or outside the model's domain (a label not in {-1, 1} or {0, 1}, a
    non-finite covariate, ...); the message names the row and column. Command: exit code 3."""


class NumericalError(CoresetError, ArithmeticError):
    """A numerical procedure failed on valid input (a Laplace fit that does not converge, a
    non-finite log-likelihood). Command: exit code 6."""


class OutputError(CoresetError, OSError):
    """An output file could not be written. Command: exit code 4."""


class DeviceError(CoresetError, RuntimeError):
    """The GPU could not be used: none is usable for device="gpu", the problem does not fit in
    its memory (the message says how much is needed and free), or a CUDA call failed. Command:
    exit code 7."""


class TargetNotReachedError(CoresetError, ValueError):
    """build(k="auto", ...): no budget k <= n reaches the quality target; the message names the
    best value reached and its k. Command: exit code 8."""
