"""What the differential scripts share: the authors' repository at a pinned commit (a checkout given with --authors,
or fetched with --fetch into a scratch folder, never into this repository), and --output, which keeps what a script
printed in a file of this repository together with where it came from, for the results page that shows it."""
import atexit
import contextlib
import datetime
import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile


def add_arguments(parser, url, commit):
    """--authors DIR | --fetch, and --output FILE."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--authors", help=f"a checkout of {url}")
    source.add_argument("--fetch", action="store_true",
                        help=f"clone {url} at commit {commit[:12]} into a scratch folder (removed afterwards)")
    parser.add_argument("--output", help="also write what is printed to this file, with the command, the authors' "
                                         "commit and glimpse's datasets (a results page shows it)")
    parser.set_defaults(authors_url=url, authors_commit=commit)


def checkout(args):
    """(the folder with the authors' code, its commit), as --authors or --fetch says; the scratch folder of --fetch
    lives until the process ends."""
    if args.authors:
        commit = subprocess.run(["git", "-C", args.authors, "rev-parse", "HEAD"], capture_output=True, text=True)
        return args.authors, commit.stdout.strip() if commit.returncode == 0 else "unknown (not a git checkout)"
    folder = tempfile.mkdtemp(prefix="authors-")
    atexit.register(shutil.rmtree, folder, True)
    subprocess.run(["git", "clone", "--quiet", args.authors_url, folder], check=True)
    subprocess.run(["git", "-C", folder, "checkout", "--quiet", args.authors_commit], check=True)
    return folder, args.authors_commit


@contextlib.contextmanager
def recorded(args, commit, datasets):
    """Everything printed inside, also written to --output with a header: the command as a reader reruns it (with
    --fetch), the authors' repository and commit, and each installed dataset's checksum."""
    captured = io.StringIO()

    class Tee:
        def write(self, text):
            sys.__stdout__.write(text)
            captured.write(text)

        def flush(self):
            sys.__stdout__.flush()

    previous = sys.stdout
    sys.stdout = Tee()
    try:
        yield
    finally:
        sys.stdout = previous
    if not args.output:
        return
    words = [w for w in sys.argv[1:]]
    shown, skip = [], False
    for word in words:  # the command as a reader reruns it: --fetch instead of a local checkout
        if skip:
            skip = False
            continue
        if word == "--authors":
            skip = True
            shown.append("--fetch")
            continue
        shown.append(word)
    script = os.path.relpath(os.path.abspath(sys.argv[0]), os.path.join(os.path.dirname(__file__), "..", ".."))
    header = [f"$ {script} {' '.join(shlex.quote(w) for w in shown)}",
              f"authors' code: {args.authors_url} at commit {commit}",
              "glimpse's rows: " + ", ".join(f"{name} (checksum {checksum})" for name, checksum in datasets),
              f"run {datetime.date.today().isoformat()}", ""]
    with open(args.output, "w") as f:
        f.write("\n".join(header) + captured.getvalue())


def dataset_checksum(cache, name):
    """The installed dataset's checksum, as `glimpse datasets list` checks it (its file's attribute)."""
    import h5py

    with h5py.File(os.path.join(cache, f"{name}.h5"), "r") as f:
        value = f.attrs.get("checksum", b"?")
        return value.decode() if isinstance(value, bytes) else str(value)
