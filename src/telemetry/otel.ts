import type * as Api from '@opentelemetry/api';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { importOptional } from '../optional-dependency.js';
import { currentSpan, runUnder, type SpanContext } from './context.js';
import {
  noTracing,
  type ActiveSpan,
  type SpanAttributes,
  type SpanPlace,
  type TelemetryConfig,
  type Tracing,
} from './tracing.js';

type Sdk = typeof import('@opentelemetry/sdk-trace-base');
type Exporter = typeof import('@opentelemetry/exporter-trace-otlp-http');
type Resources = typeof import('@opentelemetry/resources');

const FEATURE = 'Traces (telemetry)';

/**
 * The tracing of a Heed: no-op until OpenTelemetry is loaded (`ready`), and for good without `config`.
 * Nothing of OpenTelemetry is imported unless `config` is set.
 */
export function openTracing(
  config: TelemetryConfig | undefined,
  logger: Logger,
): { tracing: Tracing; ready: Promise<void> } {
  if (!config) return { tracing: noTracing, ready: Promise.resolve() };
  let inner: Tracing = noTracing;
  const ready = load(config, logger).then((loaded) => {
    inner = loaded;
  });
  const tracing: Tracing = {
    get enabled() {
      return inner.enabled;
    },
    span: (name, attributes, work, place) => inner.span(name, attributes, work, place),
    close: async () => {
      await ready.catch(() => undefined);
      await inner.close();
    },
  };
  return { tracing, ready };
}

async function load(config: TelemetryConfig, logger: Logger): Promise<Tracing> {
  const api = await importOptional<typeof Api>('@opentelemetry/api', FEATURE);
  if (config === true) return otelTracing(api, api.trace.getTracer('heed'), async () => undefined);
  const [sdk, exporter, resources] = await Promise.all([
    importOptional<Sdk>('@opentelemetry/sdk-trace-base', FEATURE),
    importOptional<Exporter>('@opentelemetry/exporter-trace-otlp-http', FEATURE),
    importOptional<Resources>('@opentelemetry/resources', FEATURE),
  ]);
  // A provider of Heed's own, not registered globally: an application that embeds Heed keeps its own.
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': config.serviceName ?? 'heed' }),
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url: config.otlpUrl }))],
  });
  return otelTracing(api, provider.getTracer('heed'), async () => {
    // Whatever is buffered is sent before the process ends; a collector out of reach loses only spans.
    await provider.shutdown().catch((error: unknown) => {
      logger.warn(errorFields(error), 'Heed: the last spans could not be sent to telemetry.otlpUrl');
    });
  });
}

function otelTracing(api: typeof Api, tracer: Api.Tracer, close: () => Promise<void>): Tracing {
  const remote = (span: SpanContext): Api.SpanContext => ({
    traceId: span.traceId,
    spanId: span.spanId,
    traceFlags: span.sampled ? api.TraceFlags.SAMPLED : api.TraceFlags.NONE,
    isRemote: true,
  });
  return {
    enabled: true,
    async span<T>(
      name: string,
      attributes: SpanAttributes,
      work: (span: ActiveSpan) => Promise<T>,
      place: SpanPlace = {},
    ) {
      // The parent: as given, else Heed's current span, else the application's own active span (its HTTP server's, say).
      const parent = place.parent ?? currentSpan();
      const base = api.context.active();
      const parentContext = parent ? api.trace.setSpanContext(base, remote(parent)) : base;
      const span = tracer.startSpan(
        name,
        { attributes: defined(attributes), links: place.links?.map((link) => ({ context: remote(link) })) },
        parentContext,
      );
      const own = span.spanContext();
      const context: SpanContext = {
        traceId: own.traceId,
        spanId: own.spanId,
        sampled: (own.traceFlags & api.TraceFlags.SAMPLED) === api.TraceFlags.SAMPLED,
      };
      const active: ActiveSpan = { set: (more) => span.setAttributes(defined(more)), context };
      try {
        return await runUnder(context, () =>
          api.context.with(api.trace.setSpan(parentContext, span), () => work(active)),
        );
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({
          code: api.SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
    close,
  };
}

function defined(attributes: SpanAttributes): Api.Attributes {
  const out: Api.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
