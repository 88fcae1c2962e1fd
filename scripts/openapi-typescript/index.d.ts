/** openapi-typescript's generator: an OpenAPI document in, the nodes of its TypeScript types out. */
export default function openapiTS(
  document: string | URL | object,
  options?: Record<string, unknown>,
): Promise<unknown[]>;
/** Those nodes as TypeScript source. */
export function astToString(nodes: unknown[]): string;
