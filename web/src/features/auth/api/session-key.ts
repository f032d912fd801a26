/**
 * The query-key prefix of every cached GetSession answer (connect-query's key shape), written
 * out so that the app shell can match it without loading the generated API descriptors on the
 * landing page. session.test.ts checks it against connect-query's own key.
 */
export const sessionQueryFilter = {
  queryKey: ["connect-query", { serviceName: "thumela.bff.v1.AuthService", methodName: "GetSession" }] as const,
};
