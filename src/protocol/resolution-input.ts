import { answerSchema, type KindAnswer } from '../kinds/index.js';

/** What a client sends to settle an action, every kind's answer (src/kinds/<kind>.ts): `type` must equal the action's kind. */
export const resolutionInputSchema = answerSchema;

export type ResolutionInput = KindAnswer;
