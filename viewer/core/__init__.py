"""The UI-free core: sources, decoding, formats and the session model.

Nothing under ``viewer.core`` may import Textual (a test enforces it); the
``--print`` modes and the benchmarks use only this package.
"""
