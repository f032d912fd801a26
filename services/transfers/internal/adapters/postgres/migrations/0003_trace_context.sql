-- The W3C trace context (traceparent, tracestate) of the request that created each transfer,
-- as a JSON object of header name to value, so that the worker's steps (charge, voucher,
-- refund, …) join that request's trace. NULL for transfers created before it was kept, or
-- without a trace. Adding a nullable column without a default rewrites nothing.
ALTER TABLE transfers ADD COLUMN trace_context jsonb
    CHECK (trace_context IS NULL OR jsonb_typeof(trace_context) = 'object');
