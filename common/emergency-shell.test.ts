import { describe, expect, it } from 'vitest';
import { countdownDue, SHELL_DATA_ID, withCountdownShell } from './emergency-shell.js';

const HTML = '<!doctype html><html lang="pt"><head></head><body><div id="root"></div></body></html>';
const page = { owner_name: 'Ana', language: 'en', countdown_seconds: 10, contacts: [{ name: 'Rui</script>' }] };
const limits = { pendingMs: 1000, recentMs: 100 };

describe('the countdown written into the emergency page', () => {
  it('shows the countdown and Cancel in the owner’s language, with the data beside it', () => {
    const html = withCountdownShell(HTML, page, 'server');
    expect(html).toContain('<html lang="en"');
    expect(html).toContain('<h1>Alert from Ana</h1>');
    expect(html).toContain('data-testid="countdown">The alert goes out in 10 s</p>');
    expect(html).toContain(
      '<input type="hidden" name="cancelled" value="1"><button type="submit" class="button cancel">Cancel</button>',
    );
    const data = new RegExp(
      `<script type="application/json" id="${SHELL_DATA_ID}" data-source="server">(.*?)</script>`,
    ).exec(html);
    // No `<` inside the block, so a contact's name cannot end it early.
    expect(data?.[1]).not.toContain('<');
    expect(JSON.parse(data?.[1] ?? '')).toEqual(page);
  });

  it('in Portuguese too, and escapes what the owner typed, `$` patterns included', () => {
    const html = withCountdownShell(HTML, { ...page, language: 'pt', owner_name: '<b>Zé</b> $& $1' }, 'cache');
    expect(html).toContain('<h1>Alerta de &#60;b&#62;Zé&#60;/b&#62; $&#38; $1</h1>');
    expect(html).toContain('O alerta sai em 10 s');
    expect(html).toContain('data-source="cache"');
  });

  it('leaves a page without an empty root as it is', () => {
    expect(withCountdownShell('<div id="root">x</div>', page, 'server')).toBe('<div id="root">x</div>');
  });

  it('is due unless there is no countdown or an earlier alert is under way or just sent', () => {
    expect(countdownDue(page, undefined, 5000, limits)).toBe(true);
    expect(countdownDue({ ...page, countdown_seconds: 0 }, undefined, 5000, limits)).toBe(false);
    expect(countdownDue(page, { pressed_at: 4500 }, 5000, limits)).toBe(false);
    expect(countdownDue(page, { pressed_at: 3000 }, 5000, limits)).toBe(true);
    expect(countdownDue(page, { pressed_at: 4950, result: {} }, 5000, limits)).toBe(false);
    expect(countdownDue(page, { pressed_at: 4800, result: {} }, 5000, limits)).toBe(true);
  });
});
