// Per-object memos for views rebuilt at every step (a gate's trail, its packets): a round whose inputs are the same
// objects as last time is not rendered again. The parse cache hands out the same frozen object while a file is
// unchanged, so identity is the change test; a memo entry goes with its key object.

/** compute(), or the value it gave for this key while every dependency was the same (===) as now. */
export type Memo<K extends object, V> = (key: K, deps: readonly unknown[], compute: () => V) => V;

export function memoOn<K extends object, V>(): Memo<K, V> {
  const entries = new WeakMap<K, { deps: readonly unknown[]; value: V }>();
  return (key, deps, compute) => {
    const hit = entries.get(key);
    if (hit && hit.deps.length === deps.length && hit.deps.every((d, i) => d === deps[i])) return hit.value;
    const value = compute();
    entries.set(key, { deps, value });
    return value;
  };
}

/** The value, frozen all the way down: a value callers share must not be edited by one of them. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
