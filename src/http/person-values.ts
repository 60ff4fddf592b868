import { pushValuesOf } from '../notify/push.js';
import { signInValuesOf } from './sign-in/stored.js';

/**
 * What the store's values keep of a person above the engine, for erasure (docs/operating.md): their
 * sessions, tokens and device codes, and their devices for push.
 */
export function personValues(userId: string): { valuePrefixes: string[]; valueScopes: string[] } {
  const signIn = signInValuesOf(userId);
  const push = pushValuesOf(userId);
  return {
    valuePrefixes: [...signIn.valuePrefixes, ...push.valuePrefixes],
    valueScopes: [...signIn.valueScopes, ...push.valueScopes],
  };
}
