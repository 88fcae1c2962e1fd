/**
 * Runs the work of one key one after another, in the order it arrived; other keys run beside it.
 * A counter read before the work and added to after it then sees every earlier one's addition.
 */
export function inLine(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    // Whatever the one before did (thrown or not), this one runs next.
    const mine = before.catch(() => undefined).then(work);
    const tail = mine.catch(() => undefined);
    tails.set(key, tail);
    // The last in line leaves no entry behind.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return mine;
  };
}
