import type { ApprovalKind } from '../../../contracts/approval.ts'
import type { CardOutcome } from '../state/approval-cards.ts'

/**
 * Inline SVG icons (no icon font, nothing fetched). Each is decorative: the
 * text next to it carries the meaning, so they are hidden from assistive
 * technology and inherit the text colour.
 */
function Icon({ name, paths }: { name: string; paths: readonly string[] }) {
  return (
    <svg
      className="icon"
      data-icon={name}
      viewBox="0 0 24 24"
      width="18"
      height="18"
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  )
}

const OUTCOME_PATHS: Readonly<Record<CardOutcome, readonly string[]>> = {
  // a clock face with its hands: waiting
  pending: ['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18', 'M12 7v5l3 2'],
  // a tick
  approved: ['M4 12.5l5 5L20 6.5'],
  // two ticks: this and the next identical command
  'always-allowed': ['M2 12.5l5 5L18 6.5', 'M11 16.5l1 1L23 6.5'],
  // a crossed circle
  rejected: ['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18', 'M8.5 8.5l7 7', 'M15.5 8.5l-7 7'],
  // an hourglass
  expired: [
    'M6 3h12',
    'M6 21h12',
    'M7 3c0 5 10 5 10 9s-10 4-10 9',
    'M17 3c0 5-10 5-10 9s10 4 10 9',
  ],
  // a gear-like reviewer badge: a shield with a tick
  'auto-reviewed': ['M12 3l8 3v6c0 4.5-3.4 8-8 9c-4.6-1-8-4.5-8-9V6z', 'M8.5 12l2.5 2.5l4.5-5'],
  // an arrow coming in to a bar: answered from outside Assent
  'webhook-decided': ['M3 12h12', 'M10 7l5 5l-5 5', 'M20 4v16'],
  // a broken link: nobody is on the other end any more
  stale: [
    'M9 15l-2 2a3 3 0 0 1-4-4l3-3a3 3 0 0 1 4 0',
    'M15 9l2-2a3 3 0 0 1 4 4l-3 3a3 3 0 0 1-4 0',
    'M4 4l3 3',
    'M17 17l3 3',
  ],
}

export function OutcomeIcon({ outcome }: { outcome: CardOutcome }) {
  return <Icon name={`outcome-${outcome}`} paths={OUTCOME_PATHS[outcome]} />
}

export type CardKind = ApprovalKind | 'permissions' | 'question' | 'form'

const KIND_PATHS: Readonly<Record<CardKind, readonly string[]>> = {
  // a terminal prompt
  'run-command': ['M3 5h18v14H3z', 'M7 10l3 2l-3 2', 'M12 15h5'],
  // a pencil over a line
  'apply-changes': ['M4 20h16', 'M14.5 4.5l3 3L8 17H5v-3z'],
  // a plug
  'mcp-tool-call': ['M9 3v5', 'M15 3v5', 'M6 8h12v3a6 6 0 0 1-12 0z', 'M12 17v4'],
  // a shield
  permissions: ['M12 3l8 3v6c0 4.5-3.4 8-8 9c-4.6-1-8-4.5-8-9V6z'],
  // a shield with a plus: one permission more
  'permission-request': ['M12 3l8 3v6c0 4.5-3.4 8-8 9c-4.6-1-8-4.5-8-9V6z', 'M12 9v6', 'M9 12h6'],
  // an open book
  read: ['M3 5c3-1 6-1 9 1c3-2 6-2 9-1v14c-3-1-6-1-9 1c-3-2-6-2-9-1z', 'M12 6v14'],
  // a speech bubble with a question mark
  question: ['M4 5h16v11H9l-5 4z', 'M10 8.5a2 2 0 1 1 2.5 1.9c-.4.2-.5.5-.5.9v.2', 'M12 13.5v.01'],
  // a form: a sheet with lines to fill
  form: ['M6 3h12v18H6z', 'M9 8h6', 'M9 12h6', 'M9 16h3'],
}

export function KindIcon({ kind }: { kind: CardKind }) {
  return <Icon name={`kind-${kind}`} paths={KIND_PATHS[kind]} />
}

export function MenuIcon() {
  return <Icon name="menu" paths={['M4 6h16', 'M4 12h16', 'M4 18h16']} />
}

export function ShieldIcon() {
  return <Icon name="shield" paths={KIND_PATHS.permissions} />
}

export function ChevronIcon() {
  return <Icon name="chevron" paths={['M6 9l6 6l6-6']} />
}

/** Points right when closed, down when open (styles/requests.css turns it). */
export function DisclosureIcon() {
  return <Icon name="disclosure" paths={['M9 6l6 6l-6 6']} />
}

/** A warning triangle: what full access gives up. */
export function WarningIcon() {
  return <Icon name="warning" paths={['M12 3l10 18H2z', 'M12 10v5', 'M12 18v.01']} />
}

export function ToolIcon() {
  return (
    <Icon
      name="tool"
      paths={[
        'M14.5 6.5a4 4 0 0 0-5.3 5.3L4 17l3 3l5.2-5.2a4 4 0 0 0 5.3-5.3l-2.5 2.5l-2.5-.5l-.5-2.5z',
      ]}
    />
  )
}

export function DisplayIcon() {
  return (
    <Icon
      name="display"
      paths={['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18', 'M12 3v18', 'M12 3a9 9 0 0 1 0 18z']}
    />
  )
}
