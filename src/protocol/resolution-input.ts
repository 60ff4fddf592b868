import { z } from 'zod';

/** What a client sends to settle an action; `type` must equal the action's kind. */
export const resolutionInputSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('approval'),
    decision: z.enum(['allow', 'deny']),
    comment: z.string().max(4000).optional(),
    approvedArgs: z.record(z.string(), z.unknown()).optional(),
    remember: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('question'),
    answers: z.record(z.string(), z.unknown()).optional(),
    skip: z.literal(true).optional(),
    dismiss: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal('client_tool'),
    output: z.unknown().optional(),
    error: z.string().max(4000).optional(),
  }),
  z.object({
    type: z.literal('url'),
    decision: z.enum(['accept', 'decline', 'cancel']),
  }),
]);

export type ResolutionInput = z.infer<typeof resolutionInputSchema>;
