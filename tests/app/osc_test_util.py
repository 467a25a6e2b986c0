"""What the OSC tests share (app/osc-control, app/listening-test): the
verdict lines, a free UDP port, and an environment whose library, settings
and caches are the test's own."""
import os
import socket

failures = 0


def check(ok, what):
    """One verdict line; a failure is counted (failures)."""
    global failures
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failures += not ok


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def own_env(work):
    return dict(os.environ, XDG_DATA_HOME=work + "/xdg", XDG_CONFIG_HOME=work + "/config",
                XDG_CACHE_HOME=work + "/cache", EARSHOT_WISDOM="off")
