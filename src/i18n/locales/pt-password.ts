/** Portuguese texts of changing the password in Setup (part of pt.ts). */
export const password = {
  password: {
    title: 'Palavra-passe',
    intro:
      'Mude a palavra-passe quando quiser. As outras sessões e os outros dispositivos terminam logo; este continua com a sessão iniciada.',
    current: 'Palavra-passe atual',
    new: 'Nova palavra-passe',
    repeat: 'Repetir a nova palavra-passe',
    submit: 'Mudar a palavra-passe',
    submitting: 'A mudar…',
    changed:
      'Palavra-passe mudada. As outras sessões e os outros dispositivos terminaram: volte a entrar neles com a nova palavra-passe.',
    empty: 'Preencha a palavra-passe atual e a nova, duas vezes.',
    failed: 'Não foi possível mudar a palavra-passe. Tente novamente.',
  },
};
