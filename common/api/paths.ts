/**
 * Paths from the API's URL patterns (Fastify's, `/api/live/:publicId/`): filled for a call,
 * or as a RegExp that recognises them. No zod here: the emergency page and the service worker
 * import it, and only it.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a route answers: its method and its URL pattern. */
export interface ApiRoute<U extends string = string> {
  readonly method: Method;
  readonly url: U;
}

type Segments<U extends string> = U extends `${infer Head}/${infer Rest}` ? Head | Segments<Rest> : U;
type NameOf<S extends string> = S extends `:${infer Name}` ? Name : never;

/** The `:name` parameters of a URL pattern, as a union of their names. */
export type ParamName<U extends string> = NameOf<Segments<U>>;

/**
 * What `pathOf` takes after the route: nothing for a pattern without parameters, else each of
 * them (any, for a URL only known as a string).
 */
export type PathArgs<U extends string> = string extends U
  ? [params?: Readonly<Record<string, string>>]
  : [ParamName<U>] extends [never]
    ? []
    : [params: { readonly [K in ParamName<U>]: string }];

/** A route's method and URL, typed to the letter (`as const` without the noise). */
export const at = <const M extends Method, const U extends string>(method: M, url: U) => ({ method, url });

/** The path of a route, each `:name` filled with its parameter, percent-encoded. */
export function pathOf<U extends string>(route: { readonly url: U }, ...args: PathArgs<U>): string {
  const params: Readonly<Record<string, string>> = args[0] ?? {};
  return route.url.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${route.url}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

const SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/** A RegExp matching the paths of a route (a pathname, no query), any value in each parameter's segment. */
export function patternOf(route: { readonly url: string }): RegExp {
  const source = route.url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(SPECIAL, '\\$&')))
    .join('\\/');
  return new RegExp(`^${source}$`);
}
