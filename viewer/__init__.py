"""agent-viewer: watch and replay coding-agent runs in the terminal."""

__version__ = "0.1.0"
