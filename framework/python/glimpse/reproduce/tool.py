"""The glimpse executable as the page generator uses it: its plugins and their declarations, its installed datasets,
its identity (what of the build can move a number), and `glimpse status`."""
import json
import subprocess

from .common import fail


class Glimpse:
    def __init__(self, executable):
        self.executable = executable
        self._plugins = None
        self._identity = None

    def output(self, *args):
        out = subprocess.run([self.executable, *args], capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"glimpse {' '.join(args)} failed (exit {out.returncode}): {out.stderr.strip()}")
        return out.stdout

    def plugins(self):
        """name -> {"name", "kind", "revision", "params": the full parameter declaration, ...}."""
        if self._plugins is None:
            self._plugins = {}
            for line in self.output("plugins", "--json").splitlines():
                plugin = json.loads(line)
                self._plugins[plugin["name"]] = plugin
        return self._plugins

    def identity(self):
        """glimpse --version --json: the version, the plugin API, the core's arithmetic revision (its stream keys,
        orders, splits) and the build's arithmetic (reference or not)."""
        if self._identity is None:
            self._identity = json.loads(self.output("--version", "--json"))
        return self._identity

    def version(self):
        return self.output("--version").strip()

    def installed_datasets(self):
        """Names `glimpse datasets list` marks installed (the CLI knows where the cache is)."""
        rows = [line.split() for line in self.output("datasets", "list").splitlines()[2:]]
        return {row[0] for row in rows if len(row) > 1 and row[1] == "yes"}

    def install(self, names):
        """Installs the named datasets that are not installed yet."""
        missing = sorted(n for n in names if n not in self.installed_datasets())
        if missing:
            print("installing datasets: " + " ".join(missing), flush=True)
            if subprocess.run([self.executable, "datasets", "install"] + missing).returncode != 0:
                fail("installing the datasets failed: " + " ".join(missing))

    def status_error(self, protocol_file, trace_file):
        """`glimpse status`'s complaint when trace_file is not protocol_file's trace, else None."""
        out = subprocess.run([self.executable, "status", str(protocol_file), str(trace_file)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if out.returncode in (0, 3):
            return None
        return out.stderr.strip().removeprefix("glimpse: error: ") or f"glimpse status exited {out.returncode}"
