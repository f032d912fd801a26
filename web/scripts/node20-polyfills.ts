// Vitest 5.1.1 wants Node ≥ 22 and its reporter calls Map.groupBy (Node ≥ 21) when it prints a
// failing test; on this machine's Node 20 that crashed the report. Loaded from vite.config.ts,
// which runs in Vitest's main process. Does nothing on Node ≥ 21.
const MapWithGroupBy = Map as MapConstructor & {
  groupBy?: <K, T>(items: Iterable<T>, key: (item: T, index: number) => K) => Map<K, T[]>;
};

if (typeof MapWithGroupBy.groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    configurable: true,
    writable: true,
    value<K, T>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> {
      const groups = new Map<K, T[]>();
      let index = 0;
      for (const item of items) {
        const k = key(item, index++);
        const group = groups.get(k);
        if (group) group.push(item);
        else groups.set(k, [item]);
      }
      return groups;
    },
  });
}
