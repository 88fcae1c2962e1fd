import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { stringsFor } from './i18n';
import { ContactList } from './parts';

describe('the owner’s page after an alert', () => {
  it('says of a contact whose number replied STOP that the SMS did not go, in both languages', () => {
    const statuses = [
      { contact_name: 'Ana', status: 'failed', opted_out: true },
      { contact_name: 'Rui', status: 'sent' },
    ];
    const { unmount } = render(<ContactList s={stringsFor('pt')} page={null} statuses={statuses} />);
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Ana não enviado: respondeu STOP ao Alerta',
      'Rui enviado',
    ]);
    unmount();
    render(<ContactList s={stringsFor('en')} page={null} statuses={statuses} />);
    expect(screen.getAllByRole('listitem')[0]).toHaveTextContent('Ana not sent: replied STOP to Alerta');
  });
});
