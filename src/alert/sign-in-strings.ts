import type { Language } from '../../common/constants';

/** "Is this your phone?": the sign-in's words and what it says when it fails, in Portuguese and English. */
const pt = {
  ownerSignIn: 'É o seu telemóvel? Inicie sessão uma vez para que este botão seja seu',
  ownerSignInHint:
    'Os alertas deste telemóvel passam a ser seus: nunca são recusados nem retidos por limites que outras pessoas gastaram. A sessão termina logo a seguir; fica só uma chave neste telemóvel.',
  username: 'Nome de utilizador ou e-mail',
  password: 'Palavra-passe',
  signIn: 'Iniciar sessão',
  signingIn: 'A iniciar sessão…',
  signedIn: 'Este botão é agora seu: os alertas deste telemóvel seguem como seus.',
  signInProblem: {
    wrong: 'Nome de utilizador ou palavra-passe errados.',
    notVerified: 'Confirme primeiro o seu e-mail (pela mensagem que lhe enviámos).',
    later: 'Demasiadas tentativas: tente de novo daqui a pouco.',
    failed: 'Não foi possível iniciar sessão agora. Tente de novo com rede.',
  },
};

const en: typeof pt = {
  ownerSignIn: 'Is this your phone? Sign in once to make this button yours',
  ownerSignInHint:
    "This phone's alerts then count as yours: never refused or held back by limits other people used up. The session ends right away; only a key stays on this phone.",
  username: 'Username or e-mail',
  password: 'Password',
  signIn: 'Sign in',
  signingIn: 'Signing in…',
  signedIn: "This button is now yours: this phone's alerts go as yours.",
  signInProblem: {
    wrong: 'Wrong username or password.',
    notVerified: 'Confirm your e-mail first (from the message we sent you).',
    later: 'Too many tries: try again in a moment.',
    failed: 'Could not sign in now. Try again with a network.',
  },
};

export type SignInStrings = typeof pt;
export const signInStringsFor = (language: Language): SignInStrings => (language === 'en' ? en : pt);
