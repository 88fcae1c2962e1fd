import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, setupAppTests, signIn } from '../../../tests/unit/app/helpers';
import i18n from '../../i18n';
import { PasswordSection } from './PasswordSection';

setupAppTests();

const URL = 'POST /api/users/me/password/';

function open() {
  signIn();
  render(<PasswordSection />);
  const form = screen.getByRole('region', { name: 'Palavra-passe' });
  const type = (label: string | RegExp, value: string) =>
    fireEvent.change(within(form).getByLabelText(label), { target: { value } });
  const submit = () => fireEvent.click(within(form).getByRole('button', { name: 'Mudar a palavra-passe' }));
  return { form, type, submit };
}

describe('Setup: changing the password', () => {
  it('sends the current and the new password, then empties itself and says the other logins ended', async () => {
    const api = fakeApi({ [URL]: { status: 204 } });
    const { form, type, submit } = open();
    type('Palavra-passe atual', 'Sturdy-Pass-42');
    type('Nova palavra-passe', 'Changed-Pass-93');
    type('Repetir a nova palavra-passe', 'Changed-Pass-93');
    submit();
    expect(await within(form).findByRole('status')).toHaveTextContent(
      'Palavra-passe mudada. As outras sessões e os outros dispositivos terminaram',
    );
    expect(api.calls.map((call) => call.body)).toEqual([
      { current_password: 'Sturdy-Pass-42', new_password1: 'Changed-Pass-93', new_password2: 'Changed-Pass-93' },
    ]);
    expect(within(form).getByLabelText('Palavra-passe atual')).toHaveValue('');
    await act(() => i18n.changeLanguage('en'));
    expect(within(form).getByRole('status')).toHaveTextContent('Password changed. Your other logins and devices');
  });

  it('shows the live checklist, and sends nothing until the new password passes it', async () => {
    const api = fakeApi({ [URL]: { status: 204 } });
    const { form, type } = open();
    const button = within(form).getByRole('button', { name: 'Mudar a palavra-passe' });
    type('Palavra-passe atual', 'Sturdy-Pass-42');
    type('Nova palavra-passe', 'abcdefgh');
    const checklist = within(form).getByRole('list');
    expect(
      within(checklist)
        .getAllByRole('listitem')
        .map((item) => item.className),
    ).toEqual(['ok', 'todo', 'ok', 'ok']);
    expect(button).toBeDisabled();
    type('Nova palavra-passe', 'abcdefg1');
    expect(button).toBeEnabled();
    expect(api.calls).toEqual([]);
  });

  it('says a wrong current password beside its field, in both languages', async () => {
    fakeApi({
      [URL]: {
        status: 400,
        body: {
          current_password: ['Your current password is not correct.'],
          code: 'wrong_password',
          codes: { current_password: 'wrong_password' },
        },
      },
    });
    const { form, type, submit } = open();
    type('Palavra-passe atual', 'Not-The-Pass-11');
    type('Nova palavra-passe', 'Changed-Pass-93');
    type('Repetir a nova palavra-passe', 'Changed-Pass-93');
    submit();
    expect(await within(form).findByText('A palavra-passe atual não está correta.')).toBeInTheDocument();
    expect(within(form).getByLabelText('Palavra-passe atual')).toHaveAttribute('aria-invalid', 'true');
    await act(() => i18n.changeLanguage('en'));
    expect(within(form).getByText('Your current password is not correct.')).toBeInTheDocument();
  });

  it('says when the two new passwords differ, without asking the server', async () => {
    const api = fakeApi({ [URL]: { status: 204 } });
    const { form, type, submit } = open();
    type('Palavra-passe atual', 'Sturdy-Pass-42');
    type('Nova palavra-passe', 'Changed-Pass-93');
    type('Repetir a nova palavra-passe', 'Changed-Pass-94');
    submit();
    expect(await within(form).findByText('As palavras-passe não coincidem.')).toBeInTheDocument();
    expect(api.calls).toEqual([]);
  });
});
