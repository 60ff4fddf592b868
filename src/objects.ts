/**
 * `{ ...base, ...fields }`, for objects built on a hot path. Node 20's V8 (11.3) makes an object literal
 * that starts with a spread and then adds keys the spread did not bring (`{ ...record, extra: 1 }`) in a
 * form its young-generation collection keeps alive, with all it points to, until the next full collection:
 * a W1 cycle built a dozen such objects and its scavenges then copied about 1 MB each and took 1.5–2 ms,
 * which made its slowest cycles (docs/architecture.md). `Object.assign` onto a new object, or a literal
 * whose keys come before its spreads, does not. Where `fields` cannot hold a key of `base`, listing the new
 * keys first (`{ extra: 1, ...record }`) is as good. Typed `A & B`: for new keys, or keys given again with
 * their type.
 */
export function extended<A extends object, B extends object>(base: A, fields: B): A & B {
  return Object.assign({}, base, fields);
}
