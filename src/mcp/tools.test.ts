import { describe, expect, it } from 'vitest';
import { offeredTools } from '../engine/turn/prompt.js';
import type { AgentConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { inputJsonSchema, jsonSchemaInput, tool } from '../tool.js';
import { offeredName } from './tools.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1 } },
  required: ['city'],
  additionalProperties: false,
};

describe('a tool input given as JSON Schema', () => {
  it('is offered to the model as given and checks calls', () => {
    const definition = tool({ description: 'Weather.', inputSchema: jsonSchemaInput(schema), execute: () => 'sunny' });
    const { $schema: _dialect, ...offered } = schema;
    expect(inputJsonSchema(definition)).toEqual(offered);
    const agent: AgentConfig = {
      name: 'a',
      model: scriptedModel(() => ({ text: '' })),
      tools: { weather: definition },
    };
    expect(offeredTools(agent, () => true)[0]).toEqual({
      type: 'function',
      name: 'weather',
      description: 'Weather.',
      inputSchema: offered,
    });
    expect(definition.inputSchema.safeParse({ city: 'Oslo', days: 2 }).success).toBe(true);
    expect(definition.inputSchema.safeParse({ city: 'O', days: 1.5 }).success).toBe(false);
    expect(definition.inputSchema.safeParse({ city: 'Oslo', extra: true }).success).toBe(false);
  });

  it('a schema zod cannot read is still offered as given; calls then only need to be objects', () => {
    const odd = {
      type: 'object',
      properties: { r: { $ref: '#/definitions/R' } },
      definitions: { R: { type: 'string' } },
    };
    const input = jsonSchemaInput(odd);
    expect(inputJsonSchema(tool({ inputSchema: input }))).toEqual(odd);
    expect(input.safeParse({ r: 1 }).success).toBe(true);
    expect(input.safeParse('text').success).toBe(false);
  });

  it('zod tools keep their JSON Schema', () => {
    expect(inputJsonSchema(tool({ inputSchema: jsonSchemaInput({ type: 'object' }) }))).toEqual({ type: 'object' });
  });
});

describe('offeredName', () => {
  it('is <server>_<tool>, with characters providers refuse turned into _', () => {
    expect(offeredName('github', 'create_issue')).toBe('github_create_issue');
    expect(offeredName('files', 'fs.read/file')).toBe('files_fs_read_file');
    expect(offeredName('s', 'x'.repeat(80))).toHaveLength(64);
  });
});
