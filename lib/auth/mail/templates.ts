import type { Mail } from "./transport.ts";

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function mail(to: string, subject: string, intro: string, link: string, outro: string): Mail {
  return {
    to,
    subject,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: `<p>${escape(intro)}</p><p><a href="${escape(link)}">${escape(link)}</a></p><p>${escape(outro)}</p>`,
  };
}

export function verificationMail(app: string, to: string, link: string): Mail {
  return mail(
    to,
    `${app}: confirm your email`,
    `Open this link to confirm your email address for ${app}:`,
    link,
    "If you did not ask for this, ignore this mail.",
  );
}

export function registrationMail(app: string, to: string, link: string): Mail {
  return mail(
    to,
    `${app}: finish your registration`,
    `Open this link to finish creating your ${app} account:`,
    link,
    "If you did not ask for this, ignore this mail.",
  );
}

export function recoveryMail(app: string, to: string, link: string): Mail {
  return mail(
    to,
    `${app}: reset your password`,
    `Open this link to choose a new password for ${app}:`,
    link,
    "If you did not ask for this, ignore this mail: your password stays as it is.",
  );
}

export function accountExistsMail(app: string, to: string): Mail {
  const text = `Someone (maybe you) tried to register a ${app} account with this email, which already has one. Log in instead; if you forgot your password, ask for a reset from the login page. If it was not you, ignore this mail.`;
  return { to, subject: `${app}: you already have an account`, text: `${text}\n`, html: `<p>${escape(text)}</p>` };
}

/**
 * The answer to a recovery or verification request for an address with nothing to recover or
 * verify. Mailing it costs what the real mail costs, so the route takes as long either way (the
 * same limits bound both: one mail per address and kind per resendDelay).
 */
export function nothingToDoMail(app: string, to: string, asked: "recovery" | "verification"): Mail {
  const text =
    asked === "recovery"
      ? `Someone (maybe you) asked to reset the ${app} password of this email, but no ${app} account uses it. If it was not you, ignore this mail.`
      : `Someone (maybe you) asked to confirm this email for ${app}, but there is nothing to confirm: no unverified ${app} account of yours uses it. If it was not you, ignore this mail.`;
  return { to, subject: `${app}: nothing to ${asked === "recovery" ? "reset" : "confirm"}`, text: `${text}\n`, html: `<p>${escape(text)}</p>` };
}
