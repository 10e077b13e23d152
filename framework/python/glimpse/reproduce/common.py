"""What every part of the page generator shares: its error exit, JSON files read with a located message, hashes."""
import hashlib
import json
import sys

MARKER = "<!-- glimpse-reproduce "


class Failure(Exception):
    """An error the command reports in one line, with its exit status."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def fail(message, status=2):
    raise Failure(message, status)


def say(message):
    print(message, file=sys.stderr, flush=True)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read it ({e.strerror})")
    except json.JSONDecodeError as e:
        fail(f"{path}: line {e.lineno}: not valid JSON ({e.msg})")


def sha(text):
    if isinstance(text, str):
        text = text.encode()
    return hashlib.sha256(text).hexdigest()[:16]


def seed_text(seeds):
    seeds = list(seeds)
    if not seeds:
        return "none"
    if seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)
