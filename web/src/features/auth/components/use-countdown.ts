import { useEffect, useState } from "react";

/** Whole seconds left until `targetMs` (never negative), re-rendering once a second until 0. */
export function useCountdown(targetMs: number): number {
  const [now, setNow] = useState(Date.now);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the clock is the external system this effect follows: a new target reads it at once, not a second later at the first tick.
    setNow(Date.now());
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= targetMs) window.clearInterval(timer);
    }, 1000);
    return () => window.clearInterval(timer);
  }, [targetMs]);

  return Math.max(0, Math.ceil((targetMs - now) / 1000));
}

/** 75 → "01:15". */
export function formatCountdown(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return `${String(minutes).padStart(2, "0")}:${String(rest).padStart(2, "0")}`;
}
