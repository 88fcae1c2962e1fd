/**
 * Shapes of the API's answers (DESIGN.md §3), as the server's schemas in `common/api/` define
 * them. Types only: zod stays out of the browser bundle.
 */
export type { Me as User, Profile, TokenPair as Tokens } from '../../common/api/accounts';
export type { Plan } from '../../common/api/billing';
export type { Contact } from '../../common/api/contacts';
