import { useEffect, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import type { WizardStep } from "../../api/send-money";

/** The query parameter naming the wizard's step: `?step=2` … `?step=4`; absent on the first. */
export const STEP_PARAM = "step";

/**
 * The history state of an entry the wizard pushed: `wizardStep` k means the k-1 entries before
 * it are this wizard's steps k-1 … 1, so going back n entries lands on step k-n. An entry
 * without it (a typed or linked `?step=`, or one replaced in place) promises nothing.
 */
interface StepEntry {
  wizardStep: WizardStep;
}

/** The step a URL's query names: 2, 3 or 4, else (absent, or anything else) the first. */
export function stepFromSearch(search: string): WizardStep {
  const value = new URLSearchParams(search).get(STEP_PARAM);
  return value === "2" || value === "3" || value === "4" ? (Number(value) as WizardStep) : 1;
}

/** `search` naming `step` instead, every other parameter (the prefill) kept. */
export function searchForStep(search: string, step: WizardStep): string {
  const params = new URLSearchParams(search);
  if (step === 1) params.delete(STEP_PARAM);
  else params.set(STEP_PARAM, String(step));
  const text = params.toString();
  return text ? `?${text}` : "";
}

function chainedStep(state: unknown): WizardStep | undefined {
  if (typeof state !== "object" || state === null) return undefined;
  const step = (state as Partial<StepEntry>).wizardStep;
  return step === 2 || step === 3 || step === 4 ? step : undefined;
}

const lower = (a: WizardStep, b: WizardStep): WizardStep => (a < b ? a : b);

/**
 * How the wizard's own entries are pushed and replaced: without the jump to the top (the step
 * changes under the sender's eyes, as before), and rendered as soon as the router has them
 * (not as a transition), so that every arrival is seen: a Back pressed right after Next's entry
 * arrived must find that entry arrived, not merged into the Back.
 */
const OWN_MOVE = { preventScrollReset: true, flushSync: true } as const;

/**
 * Runs a navigation of the wizard's effect after the effect: the router may finish it at once,
 * and its flushSync must not run while React is still in its lifecycle.
 */
function ownMove(navigation: () => void | Promise<void>) {
  queueMicrotask(() => void navigation());
}

interface WizardHistoryOptions {
  /**
   * The furthest step, up to `to`, that the form's values allow now: the first step whose own
   * fields would not pass its Next, else `to`. Read when the browser asks for a later step.
   */
  validThrough: (to: WizardStep) => WizardStep;
  /** A transfer was sent: its steps are closed, and the entries of its run lead nowhere. */
  closed: boolean;
  /** A step reached before that the form no longer allows (an earlier field was cleared): say why. */
  onRefused: (step: WizardStep) => void;
}

/**
 * The wizard's step in the browser's history, so that Back and Forward move between the steps.
 * Next pushes an entry (`?step=n`, the prefill parameters kept); Back in the wizard is the
 * browser's Back when the entry before is the previous step, else it replaces the entry. The
 * wizard's own moves (Next, Back, Try Again) show their step at once and the history follows,
 * one entry at a time. An entry the browser brings (Back, Forward, a typed URL, a reload) is a
 * request: its step is shown only once it was reached with Next in this run (`furthest`) and
 * the form still passes every step before it; otherwise the history goes back to the furthest
 * step allowed (a typed `?step=4`, Forward after Send Another, a reload, which forgets what was
 * typed). A sent transfer closes the run: the history goes back to its first step's entry,
 * where the result panel shows, so Back leaves the wizard and never reopens the confirmation of
 * a transfer already sent.
 */
export function useWizardHistory({ validThrough, closed, onRefused }: WizardHistoryOptions) {
  const location = useLocation();
  const navigate = useNavigate();
  const requested = stepFromSearch(location.search);
  const chained = requested > 1 && chainedStep(location.state) === requested;
  const [shown, setShown] = useState<WizardStep>(1);
  const [furthest, setFurthest] = useState<WizardStep>(1);
  // The step the wizard itself moved to (Next, Back, Try Again): shown at once, as before the
  // history knew of the steps, while the history follows an entry at a time. Until the entry
  // that was on its way when the walk began has arrived (Back pressed while Next's entry is
  // being pushed), being on the walk's step is not yet being done with it.
  const [walk, setWalk] = useState<Walk>();
  // Off the entry the walk began on, what was on its way has arrived.
  const current = walk?.inFlight && location.key !== walk.from ? { ...walk, inFlight: false } : walk;
  const walking = current !== undefined && !closed && (requested !== current.to || current.inFlight);
  const settled = walking ? current : undefined;
  if (settled !== walk) setWalk(settled);

  // What an entry the browser brought (Back, Forward, a typed URL, a reload) asks for, answered
  // once per arrival (and again when the run closes or the steps allowed change): the step to
  // show, and whether the history must go back to it.
  const [answer, setAnswer] = useState<Answer>();
  if (
    !walking &&
    (answer?.key !== location.key || answer.closed !== closed || answer.shown !== shown || answer.furthest !== furthest)
  ) {
    let target: WizardStep = requested;
    let refused = false;
    if (closed) target = 1;
    else if (requested > shown) {
      // Forward (or a typed step): only as far as Next took the sender and the form still allows.
      const valid = validThrough(requested);
      target = lower(lower(requested, furthest), valid);
      refused = valid < requested && furthest >= requested;
    }
    const nextShown = closed ? shown : target;
    if (nextShown !== shown) setShown(nextShown);
    setAnswer({ key: location.key, closed, shown: nextShown, furthest, target, refused });
  }

  // The entry this hook has moved on from while the browser has not left it yet (StrictMode
  // runs an effect twice, and a render may re-run it before the browser has moved): one
  // navigation per stay. Forgotten on arriving elsewhere: an entry keeps its key when Back or
  // Forward comes back to it, and moving on from it must then work again.
  const leaving = useRef<string>(undefined);
  const at = useRef<string>(undefined);

  /** From this entry back to `step`'s: onto its own entry when the chain promises it. */
  const backTo = (step: WizardStep) => {
    if (chained) void navigate(step - requested);
    else ownMove(() => navigate({ search: searchForStep(location.search, step) }, { replace: true, ...OWN_MOVE }));
  };

  useEffect(() => {
    if (at.current !== location.key) {
      at.current = location.key;
      leaving.current = undefined;
    }
    if (leaving.current === location.key) return;
    if (walking && settled) {
      if (requested === settled.to) return;
      leaving.current = location.key;
      if (requested < settled.to) {
        // One entry at a time: pushes made before the router has committed the last one are lost.
        // Chained only on a chain: a step pushed from an entry that promises nothing promises nothing.
        const step = (requested + 1) as WizardStep;
        const state: StepEntry | null = requested === 1 || chained ? { wizardStep: step } : null;
        ownMove(() => navigate({ search: searchForStep(location.search, step) }, { state, ...OWN_MOVE }));
      } else backTo(settled.to);
      return;
    }
    if (answer?.key !== location.key || answer.target >= requested) return;
    leaving.current = location.key;
    backTo(answer.target);
    if (answer.refused) onRefused(answer.target);
    // backTo and onRefused act on what this render saw; the entry, the walk and the answer decide.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answer, walking, settled, location.key]);

  /** Shows `step` now; the history follows (from an event handler, where the ref may be read). */
  const go = (step: WizardStep) => {
    setShown(step);
    setWalk({ to: step, from: location.key, inFlight: leaving.current === location.key });
  };

  return {
    step: shown,
    /** After the step's own checks passed: on to the next step, in a new history entry. */
    next() {
      if (shown === 4) return;
      const step = (shown + 1) as WizardStep;
      if (step > furthest) setFurthest(step);
      go(step);
    },
    /** One step back: the browser's Back onto the previous step's entry, when it is there. */
    back() {
      if (shown > 1) go((shown - 1) as WizardStep);
    },
    /** Back to `step` to change something there: the later steps need Next again. */
    reopen(step: WizardStep) {
      setFurthest(step);
      go(step);
    },
    /** Straight to `step` (Try Again: the payment step), every step before it in the history. */
    resume(step: WizardStep) {
      if (step > furthest) setFurthest(step);
      go(step);
    },
    /** A new run (Send Another): the first step, the URL without its prefill. */
    restart() {
      setFurthest(1);
      setShown(1);
      setWalk(undefined);
      void navigate({ search: "" }, { replace: true, flushSync: true });
    },
  };
}

/** A move the wizard made: its step, the entry it was made on, and whether one was on its way. */
interface Walk {
  to: WizardStep;
  /** The key of the entry it was made on. */
  from: string;
  /** A navigation from that entry was on its way. */
  inFlight: boolean;
}

/** The step an entry was answered with, and what the answer was worked out from. */
interface Answer {
  /** The entry answered. */
  key: string;
  closed: boolean;
  shown: WizardStep;
  furthest: WizardStep;
  /** The step allowed: below the entry's own, the history goes back to it. */
  target: WizardStep;
  /** Reached before, refused now by the form: say why. */
  refused: boolean;
}
