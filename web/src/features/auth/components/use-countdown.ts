import { useEffect, useState } from "react";

/** Whole seconds left until `targetMs` (never negative), re-rendering once a second until 0. */
export function useCountdown(targetMs: number): number {
  const [now, setNow] = useState(Date.now);

  useEffect(() => {
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
