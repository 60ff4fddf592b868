import { isPlainObject } from '../../kinds/plain-object.js';

/** One argument as asked and as approved; a value left out is absent on that side. */
export interface ArgumentChange {
  /** The argument's name; empty when the arguments are not an object (then the row is the whole value). */
  name: string;
  asked?: unknown;
  approved?: unknown;
  changed: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What an approval with edited arguments changed: each argument as asked and as approved, in the order
 * they were asked (new ones last), unchanged ones included so the row reads as the whole call.
 */
export function argumentsDiff(asked: unknown, approved: unknown): ArgumentChange[] {
  if (!isPlainObject(asked) || !isPlainObject(approved))
    return [{ name: '', asked, approved, changed: !same(asked, approved) }];
  const names = [...Object.keys(asked), ...Object.keys(approved).filter((name) => !Object.hasOwn(asked, name))];
  return names.map((name) => {
    const row: ArgumentChange = { name, changed: !same(asked[name], approved[name]) };
    if (Object.hasOwn(asked, name)) row.asked = asked[name];
    if (Object.hasOwn(approved, name)) row.approved = approved[name];
    return row;
  });
}
