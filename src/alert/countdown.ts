/**
 * Counts down whole seconds from `seconds`, of which `elapsedMs` have already gone by (the
 * countdown was on screen before the script ran): `onTick` with each remaining count, `onEnd`
 * when none is left (at once if none is). Returns what stops it.
 */
export function startCountdown(
  seconds: number,
  elapsedMs: number,
  onTick: (remaining: number) => void,
  onEnd: () => void,
): () => void {
  const elapsed = Math.max(0, elapsedMs);
  let remaining = seconds - Math.floor(elapsed / 1000);
  let interval: ReturnType<typeof setInterval> | undefined;
  if (remaining <= 0) {
    onEnd();
    return () => undefined;
  }
  onTick(remaining);
  const tick = () => {
    remaining -= 1;
    if (remaining > 0) return onTick(remaining);
    clearInterval(interval);
    onEnd();
  };
  // The first second is what is left of the one already under way.
  const first = setTimeout(
    () => {
      interval = setInterval(tick, 1000);
      tick();
    },
    1000 - (elapsed % 1000),
  );
  return () => {
    clearTimeout(first);
    clearInterval(interval);
  };
}
