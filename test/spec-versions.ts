import { describe } from 'vitest';
import type { ScriptedVersion } from '../src/testing/scripted-model.js';

/** The model specifications Heed drives: v4 is AI SDK 7 (what `npm i ai` installs), v3 AI SDK 6. */
export const SPEC_VERSIONS: readonly ScriptedVersion[] = ['v4', 'v3'];

const sdk = { v3: 'AI SDK 6', v4: 'AI SDK 7' } as const;

/**
 * `describe`, once per model specification: the body builds its models with
 * `scriptedModel(respond, { specificationVersion: spec })`, so the same scenario runs on both majors.
 */
export function describeEachSpec(name: string, body: (spec: ScriptedVersion) => void): void {
  for (const spec of SPEC_VERSIONS) describe(`${name} (${sdk[spec]} model, ${spec})`, () => body(spec));
}
