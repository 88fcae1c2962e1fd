import { describe, expect, it } from 'vitest';
import { normalizeReply, parseReply } from '../../common/sms-replies.js';

describe('SMS replies', () => {
  it('reads the opt-out words of carriers and of Portuguese, in any case and with punctuation', () => {
    for (const text of ['STOP', 'stop', 'Parar.', 'cancelar!', 'Unsubscribe', ' end ', 'Quit']) {
      expect(parseReply(text).word, text).toBe('stop');
    }
  });

  it('reads START, UNSTOP and INICIAR as back in', () => {
    for (const text of ['start', 'UNSTOP', 'Iniciar!']) expect(parseReply(text).word, text).toBe('start');
  });

  it('reads YES and SIM as a confirmation, accents and all', () => {
    for (const text of ['yes', 'Sim', 'SÍM!', 'sím.']) expect(parseReply(text).word, text).toBe('yes');
  });

  it('reads 1, VOU and ON MY WAY as on my way, and OK apart (it also confirms)', () => {
    for (const text of ['1', 'vou', 'Vou!', 'on my way', 'On my way.', 'ON-MY-WAY']) {
      expect(parseReply(text).word, text).toBe('on_my_way');
    }
    expect(parseReply('ok!').word).toBe('ok');
    expect(parseReply('Ok').word).toBe('ok');
  });

  it('gives a lone digit as a choice and leaves anything else unknown', () => {
    expect(parseReply('2')).toEqual({ word: 'unknown', choice: 2 });
    expect(parseReply('1.')).toEqual({ word: 'on_my_way', choice: 1 });
    expect(parseReply('stop it please').word).toBe('unknown');
    expect(parseReply('12').choice).toBeNull();
    expect(parseReply('').word).toBe('unknown');
  });

  it('reads the compatibility forms of the keywords and digits as the words themselves', () => {
    for (const [text, word] of [
      ['ＳＴＯＰ', 'stop'],
      ['ｐａｒａｒ', 'stop'],
      ['ＳＴＡＲＴ', 'start'],
      ['ＳＩＭ', 'yes'],
      ['ＹＥＳ！', 'yes'],
      ['ＯＫ', 'ok'],
      ['ＶＯＵ', 'on_my_way'],
    ] as const) {
      expect(parseReply(text).word, text).toBe(word);
    }
    expect(parseReply('２')).toEqual({ word: 'unknown', choice: 2 });
    expect(parseReply('①').choice).toBe(1);
  });

  it('normalizes accents, case and punctuation', () => {
    expect(normalizeReply('  Já  vou!! ')).toBe('JA VOU');
  });
});
