import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { argumentFields, checkJsonSchema } from './json-schema-check.js';

// The schemas the server sends are zod's JSON Schema of a tool's input.
const refund = z.toJSONSchema(
  z.object({
    orderId: z.number().int().positive(),
    amount: z.number().positive().max(500),
    reason: z.string().max(10).optional(),
    speed: z.enum(['standard', 'express']).optional(),
    notify: z.boolean().optional(),
  }),
  { io: 'input' },
) as Record<string, unknown>;

describe('checking edited arguments against a tool schema', () => {
  it('accepts what the tool accepts', () => {
    expect(checkJsonSchema(refund, { orderId: 42, amount: 20 })).toEqual([]);
    expect(
      checkJsonSchema(refund, { orderId: 42, amount: 20, reason: 'late', speed: 'express', notify: true }),
    ).toEqual([]);
  });

  it('names each field that is wrong, in a sentence', () => {
    expect(
      checkJsonSchema(refund, { orderId: 4.5, amount: 900, reason: 'far too long a reason', speed: 'slow' }),
    ).toEqual([
      { field: 'orderId', message: 'orderId must be a whole number.' },
      { field: 'amount', message: 'amount must be at most 500.' },
      { field: 'reason', message: 'reason must be at most 10 characters long.' },
      { field: 'speed', message: 'speed must be one of "standard", "express".' },
    ]);
    expect(checkJsonSchema(refund, { amount: 0 })).toEqual([
      { field: 'orderId', message: 'orderId is required.' },
      { field: 'amount', message: 'amount must be more than 0.' },
    ]);
    expect(checkJsonSchema(refund, { orderId: 1, amount: '5' })).toEqual([
      { field: 'amount', message: 'amount must be a number.' },
    ]);
    expect(checkJsonSchema(refund, [1])).toEqual([{ field: '', message: 'The arguments must be an object.' }]);
  });

  it('refuses arguments the tool does not take, and values that fit no form of a union', () => {
    const strict = z.toJSONSchema(
      z.strictObject({
        id: z.number(),
        note: z.union([z.string(), z.number()]).optional(),
        target: z.union([z.object({ sku: z.string() }), z.number()]).optional(),
      }),
      { io: 'input' },
    ) as Record<string, unknown>;
    expect(checkJsonSchema(strict, { id: 1, extra: true })).toEqual([
      { field: 'extra', message: 'extra is not an argument of this tool.' },
    ]);
    expect(checkJsonSchema(strict, { id: 1, note: false })).toEqual([
      { field: 'note', message: 'note must be text or a number.' },
    ]);
    expect(checkJsonSchema(strict, { id: 1, target: { sku: 3 } })).toEqual([
      { field: 'target', message: 'target does not fit any of the forms this tool accepts.' },
    ]);
  });

  it('offers a form for flat objects and a JSON editor otherwise', () => {
    expect(argumentFields(refund)?.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['orderId', 'integer', true],
      ['amount', 'number', true],
      ['reason', 'string', false],
      ['speed', 'enum', false],
      ['notify', 'boolean', false],
    ]);
    const nested = z.toJSONSchema(z.object({ items: z.array(z.string()) })) as Record<string, unknown>;
    expect(argumentFields(nested)).toBeUndefined();
    expect(checkJsonSchema(nested, { items: ['a', 2] })).toEqual([
      { field: 'items.1', message: 'items.1 must be text.' },
    ]);
  });
});
