/**
 * docs/http.md's config tables, made from the options' zod shapes (config-schema.ts): each option's doc
 * line and default live there only. `npm run docs:config` rewrites the tables; config-docs.test.ts fails
 * when the file is stale.
 */
import type { z } from 'zod';
import { configGroups, defaultOf } from './config-schema.js';

/** Each generated table sits between `<!-- config:<group> -->` and `<!-- /config -->`. */
const tablePattern = /(<!-- config:([^ ]*) -->\n)[\s\S]*?(<!-- \/config -->)/g;

function shownDefault(schema: z.ZodType): string {
  const value = defaultOf(schema);
  if (value === undefined) return '';
  if (typeof value === 'number') return value.toLocaleString('en-US');
  return `\`${JSON.stringify(value).replace(/"/g, "'")}\``;
}

/** The markdown table of one group: one row per option that has a doc line. */
export function configTable(group: string): string {
  const prefix = group ? `${group}.` : '';
  const shape = configGroups()[group];
  if (!shape) throw new Error(`docs name an unknown config group "${group}"`);
  const rows = Object.entries(shape as Record<string, z.ZodType>)
    .filter(([, schema]) => schema.description)
    .map(
      ([key, schema]) =>
        `| \`${prefix}${key}\` | ${shownDefault(schema)} | ${schema.description?.replace(/\|/g, '\\|')} |`,
    );
  return ['| option | default | what |', '| --- | --- | --- |', ...rows].join('\n') + '\n';
}

/** The markdown with every generated table brought up to date. */
export function withConfigTables(markdown: string): string {
  return markdown.replace(tablePattern, (whole, open: string, group: string, close: string) => {
    return `${open}${configTable(group)}${close}`;
  });
}
