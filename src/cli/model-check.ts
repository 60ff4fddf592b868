import type { AgentConfig } from '../config.js';

/** How long the check of one provider may take before the start goes on without its answer. */
const CHECK_MS = 3000;

/**
 * What an AI SDK provider's model keeps of its settings. Not part of the provider specification: the
 * first-party providers (`@ai-sdk/openai`, `@ai-sdk/anthropic`, …) all keep these, and a model that
 * does not is simply not checked.
 */
interface ProviderSettings {
  provider?: string;
  headers?: () => Record<string, string | undefined> | Promise<Record<string, string | undefined>>;
  url?: (options: { path: string; modelId: string }) => string;
  baseURL?: string;
  fetch?: typeof fetch;
}

/**
 * Looks at each agent's model before the first message does: an API key that is missing, a provider
 * that nothing answers for, a key the provider refuses. Resolves with one warning line per agent whose
 * first message would fail (none for scripted models, or for models this cannot look into). A provider
 * is asked once (`GET …/models`, which costs no tokens), however many agents use it.
 */
export async function checkModels(agents: readonly AgentConfig[]): Promise<string[]> {
  const probes = new Map<string, Promise<string | undefined>>();
  const lines = await Promise.all(
    agents.map(async (agent) => {
      const settings = settingsOf(agent.model);
      if (!settings) return undefined;
      const label =
        `agent "${agent.name}" (${settings.provider ?? 'model'} ${(agent.model as { modelId?: string }).modelId ?? ''})`.replace(
          ' )',
          ')',
        );
      let headers: Record<string, string | undefined>;
      try {
        headers = (await settings.headers?.()) ?? {};
      } catch (thrown) {
        // The provider reads its API key when it builds the headers: a missing key throws here (AI_LoadAPIKeyError).
        return `Warning: ${label} will fail at its first message: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
      }
      const bearer = headers.Authorization ?? headers.authorization;
      if (bearer !== undefined && bearer.trim() === 'Bearer') {
        return `Warning: ${label} will fail at its first message: its API key is empty (an environment variable such as OPENAI_API_KEY set to nothing). Set the key.`;
      }
      const url = modelsUrl(settings, (agent.model as { modelId?: string }).modelId ?? '');
      if (!url) return undefined;
      const key = `${url}\n${headers.authorization ?? headers.Authorization ?? headers['x-api-key'] ?? ''}`;
      if (!probes.has(key)) probes.set(key, probe(url, headers, settings.fetch ?? fetch));
      const problem = await probes.get(key);
      return problem ? `Warning: ${label} will fail at its first message: ${problem}` : undefined;
    }),
  );
  return lines.filter((line): line is string => line !== undefined);
}

function settingsOf(model: unknown): ProviderSettings | undefined {
  const config = (model as { config?: unknown } | null)?.config;
  if (typeof config !== 'object' || config === null) return undefined;
  const settings = config as ProviderSettings;
  if (
    typeof settings.headers !== 'function' &&
    typeof settings.url !== 'function' &&
    typeof settings.baseURL !== 'string'
  )
    return undefined;
  return settings;
}

function modelsUrl(settings: ProviderSettings, modelId: string): string | undefined {
  try {
    const url =
      typeof settings.url === 'function'
        ? settings.url({ path: '/models', modelId })
        : typeof settings.baseURL === 'string'
          ? `${settings.baseURL.replace(/\/+$/, '')}/models`
          : undefined;
    return url && /^https?:\/\//.test(url) ? url : undefined;
  } catch {
    // A provider whose settings cannot be read is not checked; its first message says what is wrong.
    return undefined;
  }
}

/** Asks the provider for its list of models: a sentence saying what is wrong, or undefined when it answered. */
async function probe(
  url: string,
  headers: Record<string, string | undefined>,
  fetcher: typeof fetch,
): Promise<string | undefined> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') sent[name] = value;
  const base = url.replace(/\/models$/, '');
  try {
    const response = await fetcher(url, { headers: sent, signal: AbortSignal.timeout(CHECK_MS) });
    // Only the status matters; a body that cannot be cancelled is dropped with the response.
    await response.body?.cancel().catch(() => undefined);
    if (response.status === 401 || response.status === 403) {
      return `the provider at ${base} refused its API key (${response.status}). Check the key (OPENAI_API_KEY for OpenAI).`;
    }
    return undefined;
  } catch (thrown) {
    const name = (thrown as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return `the provider at ${base} did not answer within ${CHECK_MS / 1000} s. Check that it runs and can be reached.`;
    const cause = (thrown as { cause?: { code?: string; message?: string } }).cause;
    const why =
      cause?.code === 'ECONNREFUSED'
        ? 'nothing answers there (connection refused)'
        : cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN'
          ? 'its host name does not resolve'
          : (cause?.message ?? (thrown instanceof Error ? thrown.message : String(thrown)));
    return `the provider at ${base} cannot be reached: ${why}. Check its address (baseURL, or OPENAI_BASE_URL for OpenAI) and that it runs.`;
  }
}
