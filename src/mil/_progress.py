"""Progress of long runs with an estimate of the time left (no dependency).

On a terminal one line is redrawn in place (every second, so the elapsed
time moves during a long step); when stderr is a file or a pipe (a log, CI)
a plain line is written every `interval` seconds instead, so a long run
shows that it is alive without filling the log.
"""

import sys
import threading
import time

__all__ = ["Progress", "format_duration"]


def format_duration(seconds):
    """``"42 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``."""
    seconds = max(int(round(seconds)), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Count steps and report them on stderr with the time left.

    The time left is the mean time per step so far times the steps left;
    when a label says how many steps it covers (``set_label(label, steps)``,
    e.g. one learner's folds), its remaining steps are timed at its own
    pace. It stays rough when later steps differ in cost (the folds of a
    boosted ensemble against those of a nearest-neighbour learner).

    Parameters
    ----------
    total : int
        Number of steps.
    label : str, default=""
        What is running (shown before the counts).
    enabled : bool or None, default=None
        None: a redrawn bar when `stream` is a terminal, plain lines every
        `interval` seconds otherwise. True: the same choice (kept for
        callers that force progress on). False: silent.
    stream : file, default=sys.stderr
    interval : float, default=10.0
        Seconds between two plain lines (not used on a terminal).
    clock : callable, default=time.monotonic
        Returns the time in seconds (tests pass a fake clock).
    heartbeat : bool or None, default=None
        Also report from a background thread while a step runs (a redraw
        every second on a terminal, a line every `interval` seconds
        otherwise). None: only with the real clock.
    """

    def __init__(self, total, label="", enabled=None, stream=None, interval=10.0, clock=time.monotonic,
                 heartbeat=None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled is not False
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.total, self.label, self.done = max(int(total), 1), label, 0
        self.interval, self.clock = float(interval), clock
        self.start = clock()
        self._last_line = self.start
        self._lines = 0
        self._segment = None  # (start time, steps done at its start, its steps)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if self.enabled and (clock is time.monotonic if heartbeat is None else heartbeat):
            self._thread = threading.Thread(target=self._beat, name="mil-progress", daemon=True)
            self._thread.start()

    def _beat(self):
        while not self._stop.wait(1.0 if self.tty else min(self.interval, 1.0)):
            with self._lock:
                if self.tty:
                    self._draw()
                elif self.clock() - self._last_line >= self.interval:
                    self._line()

    def set_label(self, label, steps=None):
        """Say what runs now, and optionally how many of the steps it covers."""
        with self._lock:
            self.label = label
            self._segment = None if steps is None else (self.clock(), self.done, int(steps))
            if self.tty:
                self._draw()
            elif self.enabled and self.done and self.clock() - self._last_line >= self.interval:
                self._line()

    def __call__(self, steps=1):
        with self._lock:
            self.done += steps
            if self.tty:
                self._draw()
            elif self.enabled and self.clock() - self._last_line >= self.interval:
                self._line()

    def skip(self, steps):
        """Drop `steps` that will not run (a learner that was skipped) from the total."""
        with self._lock:
            self.total = max(self.total - int(steps), max(self.done, 1))
            if self.tty:
                self._draw()

    def status(self):
        """``"12/70 (17 %), 23 s elapsed, about 1 min 40 s left"``."""
        elapsed = self.clock() - self.start
        text = f"{self.done}/{self.total} ({100 * self.done // self.total} %), {format_duration(elapsed)} elapsed"
        if 0 < self.done < self.total:
            rate, left = elapsed / self.done, 0.0
            if self._segment is not None:
                start, done0, steps = self._segment
                done = self.done - done0
                remaining = max(steps - done, 0)
                left += remaining * ((self.clock() - start) / done if done else rate)
                left += max(self.total - self.done - remaining, 0) * rate
            else:
                left = rate * (self.total - self.done)
            text += f", about {format_duration(left)} left"
        return text

    def _draw(self):
        if not self.enabled:
            return
        frac = min(self.done / self.total, 1.0)
        bar = "#" * int(frac * 20)
        line = f"{self.label[:28]:<28} [{bar:<20}] {self.status()}"
        self.stream.write("\r" + line[:119].ljust(119))
        self.stream.flush()

    def _line(self):
        self._last_line = self.clock()
        self._lines += 1
        self.stream.write(f"mil: {self.label}: {self.status()}\n" if self.label else f"mil: {self.status()}\n")
        self.stream.flush()

    def close(self):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r" + " " * 119 + "\r")
            self.stream.flush()
        elif self._lines:  # the log said it was running: say it finished
            self.stream.write(f"mil: done, {format_duration(self.clock() - self.start)}\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
