import type { z } from 'zod';
import { clip } from './clip.js';

/** The first issues (a huge answer could otherwise make a huge error). */
export function issueList(issues: z.core.$ZodIssue[]) {
  return issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String).join('.'), message: clip(issue.message) }));
}

/** The first few issues as one sentence. */
export function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => clip(issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
