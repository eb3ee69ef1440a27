"""``python -m viewer``, and the ``agent-viewer`` command (:func:`run`)."""

import sys


def run() -> None:
    try:
        from viewer.cli import main  # (about 0.1 s of imports)
    except KeyboardInterrupt:  # Ctrl-C while starting: an exit status, not a traceback
        sys.exit(130)
    main()


if __name__ == "__main__":
    run()
