import { checkQuestions } from '../kinds/question.js';
import type { AgentConfig } from '../config.js';
import { HeedError } from '../errors.js';
import type { Question } from '../types.js';

const checked = new WeakMap<AgentConfig, Question[]>();

/** The agent's intake questions, checked and normalized once; a bad intake is a configuration error. */
export function intakeQuestions(agent: AgentConfig): Question[] {
  let questions = checked.get(agent);
  if (!questions) {
    const result = checkQuestions(agent.intake?.questions, { source: 'intake' });
    if (!result.ok) {
      throw new HeedError(
        'invalid_config',
        `The intake of agent "${agent.name}" is not valid: ${result.problems.join(' ')}`,
      );
    }
    questions = result.questions;
    checked.set(agent, questions);
  }
  return questions;
}
