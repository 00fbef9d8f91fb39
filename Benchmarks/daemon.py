"""Starting, timing and talking to a release avisod for the model benchmarks (imported by the *_bench.py scripts)."""
import json, os, signal, socket, subprocess, sys, tempfile, time


class Daemon:
    """One avisod with its own configuration, state directory and control socket, on the harness's session bus.

    `start()` returns the seconds from just before exec to the READY=1 datagram on a NOTIFY_SOCKET of our own, as
    systemd would see them."""

    def __init__(self, binary, config_home, state_home, work):
        self.binary, self.config_home, self.state_home, self.work = binary, config_home, state_home, work
        self.socket_path = os.path.join(work, "ctl.sock")
        self.log_path = os.path.join(work, "daemon.log")
        self.process = None

    def start(self, timeout=600):
        notify_path = os.path.join(self.work, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(0.2)
        env = dict(os.environ, XDG_CONFIG_HOME=self.config_home, XDG_STATE_HOME=self.state_home,
                   NOTIFY_SOCKET=notify_path)
        env.pop("WATCHDOG_USEC", None)
        self.log = open(self.log_path, "ab")
        begin = time.monotonic()
        self.process = subprocess.Popen([self.binary, "--socket", self.socket_path], env=env, stderr=self.log)
        try:
            while True:
                try:
                    if b"READY=1" in notify.recv(4096):
                        return time.monotonic() - begin
                except socket.timeout:
                    pass
                if self.process.poll() is not None:
                    raise SystemExit(f"avisod exited with status {self.process.returncode} before READY=1 "
                                     f"(log: {self.log_path})")
                if time.monotonic() - begin > timeout:
                    self.process.kill()
                    self.process.wait()
                    raise SystemExit(f"avisod did not report READY=1 within {timeout} s (log: {self.log_path})")
        finally:
            notify.close()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                # A daemon that does not stop is a bug to see, not to hide behind SIGKILL.
                self.process.kill()
                self.process.wait()
                self.process = None
                self.log.close()
                raise RuntimeError("avisod did not exit within 30 s of SIGTERM")
        self.process = None
        self.log.close()

    def memory(self):
        """(VmRSS, VmHWM) in MiB."""
        fields = dict(l.split(":", 1) for l in open(f"/proc/{self.process.pid}/status") if l.startswith("Vm"))
        return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))

    def cpu_seconds(self):
        """User and system CPU time of all avisod's threads so far."""
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def cpu_seconds_by_thread(self):
        """User and system CPU time so far of each of avisod's threads, by thread id and name."""
        times = {}
        for task in os.listdir(f"/proc/{self.process.pid}/task"):
            try:
                name = open(f"/proc/{self.process.pid}/task/{task}/comm").read().strip()
                fields = open(f"/proc/{self.process.pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()
            except FileNotFoundError:  # the thread ended in between
                continue
            times[(task, name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return times

    def connect(self):
        """A line-oriented connection to the control socket: `call(dict)` sends a command and returns the reply."""
        return Connection(self.socket_path)


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")

    def call(self, command):
        self.file.write((json.dumps(dict(command, v=1)) + "\n").encode())
        self.file.flush()
        reply = json.loads(self.file.readline())
        if not reply.get("ok"):
            raise SystemExit(f"avisod refused {command}: {reply}")
        return reply

    def close(self):
        self.sock.close()


def remind_seconds(remind_file, runs=5):
    """Median seconds of `remind -n` over the file (output discarded, process included)."""
    times = []
    for _ in range(runs):
        begin = time.monotonic()
        subprocess.run(["remind", "-n", remind_file], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.monotonic() - begin)
    return sorted(times)[len(times) // 2]


def work_dir():
    return tempfile.mkdtemp(prefix="aviso-model.")


def write_model(n, work):
    """Writes N reminders in 100 files under WORK (model.py) and the equivalent Remind file; returns the configuration
    home, the state directory (not made) and the Remind file. The files are synced to disk, as a person's reminder
    files are long before aviso starts: else a first start's first fsync may wait for the journal to write out the
    12 MB just written (once 1.3 s of a 2.0 s first start)."""
    config, state, remind_file = (os.path.join(work, name) for name in ("config", "state", "model.rem"))
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "model.py"), str(n), config, remind_file],
                   check=True)
    os.sync()
    return config, state, remind_file
