"""Progress of long runs with an estimate of the time left (no dependency).

On a terminal one line is redrawn in place (every second, so the elapsed
time moves during a long step); when stderr is a file or a pipe (a log, CI)
a plain line is written every `interval` seconds instead, so a long run
shows that it is alive without filling the log.
"""

import shutil
import sys
import threading
import time
from collections import deque

__all__ = ["Progress", "fit_line", "format_duration"]


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


def _left(seconds):
    """``", about 3 min 05 s left"``; ``", under 1 s left"`` at the end."""
    return ", under 1 s left" if seconds < 0.5 else f", about {format_duration(seconds)} left"


def _cut_words(text, width):
    """`text` cut to `width` characters at a word boundary (an ellipsis marks the cut)."""
    if len(text) <= width:
        return text
    cut = text[:max(width - 1, 0)]
    if " " in cut.strip():
        cut = cut[:cut.rstrip().rfind(" ")]
    return cut.rstrip(" ,;:(") + "…"


def fit_line(label, fraction, status, width):
    """The progress line in at most `width` characters, cut only between words.

    In order, until it fits: the elapsed time leaves the status, the bar
    shrinks from 20 to 10 cells, the label is cut at a word to 20
    characters, the status loses its last parts (the time left, then the
    others); on a very narrow terminal, the label alone.
    """
    parts = status.split(", ")
    short = [p for p in parts if not p.endswith(" elapsed")]
    tries = [(34, 20, parts), (34, 20, short), (34, 10, short), (20, 10, short)]
    tries += [(20, 10, short[:k]) for k in range(len(short) - 1, 0, -1)]
    for label_width, cells, pieces in tries:
        name = _cut_words(label, label_width)
        line = f"{name:<{label_width}} [{'#' * int(fraction * cells):<{cells}}] {', '.join(pieces)}"
        if len(line) <= width:
            return line
    return _cut_words(label, width)


class Progress:
    """Count steps and report them on stderr with the time left.

    Three ways to estimate the time left, from the best informed:

    - after :meth:`plan` gave the expected cost of every step still to come
      (e.g. the measured time of one fold of each learner), the remaining
      costs are summed and scaled by the pace of the steps done since (their
      elapsed time over their planned cost), so a machine that got slower or
      faster since the measurement is followed;
    - otherwise, when a label says how many steps it covers
      (``set_label(label, steps)``, e.g. one learner's folds), its remaining
      steps are timed at its own pace and the others at the mean pace;
    - otherwise, the mean time per step so far times the steps left. This is
      rough when later steps differ in cost (the folds of a boosted ensemble
      against those of a nearest-neighbour learner); `pending` then says
      instead that no estimate is available yet.

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
    pending : str or None, default=None
        Shown in place of the time left until :meth:`plan` is called (e.g.
        ``"time left after one fold of each learner"``). None: estimate from
        the steps done so far.
    """

    def __init__(self, total, label="", enabled=None, stream=None, interval=10.0, clock=time.monotonic,
                 heartbeat=None, pending=None):
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
        self.pending = pending
        self._plan = None  # expected costs of the steps to come, in order
        self._planned = None  # (start time, planned cost done, time of the last step)
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

    def plan(self, sizes, groups=None):
        """Give the expected cost of each step still to come, in the order they finish.

        Parameters
        ----------
        sizes : sequence of float
            Expected seconds of each remaining step (e.g. the measured time
            of one fold of the learner the step belongs to).
        groups : sequence or None, default=None
            The group of each step (e.g. its learner), same length as
            `sizes`. The steps of the group under way are timed at the pace
            measured on its steps done so far (seconds taken per planned
            second); later groups at their planned sizes. A pace is not
            carried from one group to another: one learner's later folds may
            be cheaper than its first (shared caches) while another's are not.
            None: all steps form one group.
        """
        sizes = [max(float(size), 0.0) for size in sizes]
        groups = [None] * len(sizes) if groups is None else list(groups)
        if len(groups) != len(sizes):
            raise ValueError(f"plan: {len(sizes)} sizes but {len(groups)} groups")
        with self._lock:
            self._plan = deque(zip(sizes, groups))
            self._segment = None
            self._new_group()

    def _new_group(self):
        """The head of the plan starts a group: its pace is measured from now."""
        now = self.clock()
        self._planned = [now, 0.0, now]  # group start, planned cost done in it, last step's end

    def _pop(self, steps, done):
        """Remove the next `steps` planned steps (done or skipped)."""
        for _ in range(min(int(steps), len(self._plan))):
            size, group = self._plan.popleft()
            if done:
                self._planned[1] += size
                self._planned[2] = self.clock()
            if self._plan and self._plan[0][1] != group:
                self._new_group()

    def __call__(self, steps=1):
        with self._lock:
            self.done += steps
            if self._plan is not None:
                self._pop(steps, done=True)
            if self.tty:
                self._draw()
            elif self.enabled and self.clock() - self._last_line >= self.interval:
                self._line()

    def skip(self, steps):
        """Drop `steps` that will not run (a learner that was skipped) from the total."""
        with self._lock:
            self.total = max(self.total - int(steps), max(self.done, 1))
            if self._plan is not None:  # the skipped steps are the next ones planned
                self._pop(steps, done=False)
            if self.tty:
                self._draw()

    def status(self):
        """``"12/70 (17 %), 23 s elapsed, about 1 min 40 s left"``."""
        elapsed = self.clock() - self.start
        text = f"{self.done}/{self.total} ({100 * self.done // self.total} %), {format_duration(elapsed)} elapsed"
        if self._plan is not None:
            if self.done < self.total:
                text += _left(self._planned_left())
        elif self.pending is not None:
            if self.done < self.total:
                text += f", {self.pending}"
        elif 0 < self.done < self.total:
            rate, left = elapsed / self.done, 0.0
            if self._segment is not None:
                start, done0, steps = self._segment
                done = self.done - done0
                remaining = max(steps - done, 0)
                left += remaining * ((self.clock() - start) / done if done else rate)
                left += max(self.total - self.done - remaining, 0) * rate
            else:
                left = rate * (self.total - self.done)
            text += _left(left)
        return text

    def _planned_left(self):
        """Seconds left: the group under way at its measured pace, later groups as planned."""
        if not self._plan:
            return 0.0
        start, cost_done, last = self._planned
        pace = (last - start) / cost_done if cost_done > 0 else 1.0
        head = self._plan[0][1]
        left = 0.0
        for size, group in self._plan:
            left += size * pace if group == head else size
        # The step under way has been running since the last one ended: count
        # that time as done, but not beyond the step's own expected time.
        running = min(self.clock() - last, self._plan[0][0] * pace)
        return max(left - running, 0.0)

    def _draw(self):
        if not self.enabled:
            return
        width = self._width()
        self.stream.write("\r" + fit_line(self.label, min(self.done / self.total, 1.0), self.status(),
                                           width).ljust(width))
        self.stream.flush()

    @staticmethod
    def _width():
        """Characters a redrawn line may use: one less than the terminal's width (no wrap)."""
        return max(shutil.get_terminal_size((120, 24)).columns - 1, 20)

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
            self.stream.write("\r" + " " * self._width() + "\r")
            self.stream.flush()
        elif self._lines:  # the log said it was running: say it finished
            self.stream.write(f"mil: done, {format_duration(self.clock() - self.start)}\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
