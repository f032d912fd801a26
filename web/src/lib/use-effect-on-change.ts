import { type DependencyList, type EffectCallback, useEffect, useRef } from "react";

/**
 * useEffect that skips the component's first render: `effect` runs when `deps` change, not when
 * they are first seen. For a reaction to a change the user made (a step moved on, a form opened
 * or closed), which the page's first showing is not: focus moved on mount would take it from
 * wherever the page put it.
 */
export function useEffectOnChange(effect: EffectCallback, deps: DependencyList) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    return effect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller's deps, as useEffect's
  }, deps);
}
