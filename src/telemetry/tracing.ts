import type { SpanContext } from './context.js';

/**
 * `telemetry` (docs/operating.md, Traces): `{ otlpUrl, serviceName? }` sends Heed's spans to an
 * OpenTelemetry collector as OTLP/HTTP JSON; `true` makes them with the tracer provider the application
 * registered with `@opentelemetry/api` itself (a NodeSDK, say). Checked by src/config-schema.ts.
 */
export type TelemetryConfig = true | { otlpUrl: string; serviceName?: string };

/** Attribute values a span takes. */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

/** The span a piece of work runs in, while it runs. */
export interface ActiveSpan {
  /** Adds attributes known only once the work is under way (a decision, a wait). */
  set(attributes: SpanAttributes): void;
  /** Its context (undefined while traces are off): keep it to continue or link the trace later. */
  readonly context: SpanContext | undefined;
}

/** Where a span hangs: its parent, and spans it is linked to (from other traces or earlier work). */
export interface SpanPlace {
  /** The parent; default the current span (an incoming `traceparent`, or the work this runs within). */
  parent?: SpanContext;
  links?: SpanContext[];
}

/**
 * The one seam between Heed and OpenTelemetry (docs/operating.md, Traces). The engine, the outbox and
 * the HTTP layer call it always; while traces are off it is `noTracing`, which runs the work and makes nothing.
 */
export interface Tracing {
  /** Whether spans are made. */
  readonly enabled: boolean;
  /** Runs `work` in a span named `name`, ended when it settles (failed when it throws). */
  span<T>(
    name: string,
    attributes: SpanAttributes,
    work: (span: ActiveSpan) => Promise<T>,
    place?: SpanPlace,
  ): Promise<T>;
  /** Sends what is buffered and stops (Heed's close). */
  close(): Promise<void>;
}

const noSpan: ActiveSpan = { set: () => undefined, context: undefined };

/** Traces off: the work runs as it is. */
export const noTracing: Tracing = {
  enabled: false,
  span: (_name, _attributes, work) => work(noSpan),
  close: async () => undefined,
};
