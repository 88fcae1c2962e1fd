// pg's own module of value conversions (the package exports `pg/lib/*`; @types/pg leaves it out).
declare module 'pg/lib/utils.js' {
  const utils: {
    /** A value as pg sends it to PostgreSQL; throws for one it cannot send. */
    prepareValue(value: unknown): unknown;
  };
  export default utils;
}
