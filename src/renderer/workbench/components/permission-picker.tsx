import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import type { RoomPermissions } from '../../../contracts/room.ts'
import { errorText } from '../gui/error-text.ts'
import { ChevronIcon, ShieldIcon, WarningIcon } from './icons.tsx'

export const PERMISSION_MODES: readonly PermissionMode[] = [
  'plan',
  'ask-for-approval',
  'approve-for-me',
  'full-access',
]

export interface PermissionPickerProps {
  /** The runtime's answer to `permissions(roomId)`; undefined while loading. */
  permissions: RoomPermissions | undefined
  /** Asks main for the protected mode-change window (none for entering
   *  plan mode, which only narrows); resolves when the change is done. */
  onChoose: (mode: PermissionMode) => Promise<void>
}

/**
 * The room's permission mode. It shows only what the runtime reports, never
 * the option just clicked: a change happens in the protected window, and the
 * picker learns of it from the next `permissions` answer.
 */
export function PermissionPicker({ permissions, onChoose }: PermissionPickerProps) {
  const { t } = useTranslation()
  const menuId = useId()
  const [open, setOpen] = useState(false)
  const [requesting, setRequesting] = useState<PermissionMode | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const container = useRef<HTMLDivElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  const current = permissions?.mode

  useEffect(() => {
    if (!open) return
    // The keyboard lands on the current mode, so arrows and Tab start there.
    const menu = container.current?.querySelector('[role="group"]')
    const current =
      menu?.querySelector<HTMLButtonElement>('[aria-pressed="true"]') ??
      menu?.querySelector<HTMLButtonElement>('button:not([disabled])')
    current?.focus()
    const outside = (event: PointerEvent) => {
      if (!container.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  /** Up and down move between the options that can be chosen. */
  const moveFocus = (step: 1 | -1) => {
    const options = [
      ...(container.current?.querySelectorAll<HTMLButtonElement>(
        '.picker__option:not([disabled])',
      ) ?? []),
    ]
    const index = options.indexOf(document.activeElement as HTMLButtonElement)
    options[(index + step + options.length) % options.length]?.focus()
  }

  const close = () => {
    setOpen(false)
    toggle.current?.focus()
  }

  const choose = async (mode: PermissionMode) => {
    close()
    // Choosing the current mode changes nothing, unless the room's row was
    // edited outside Assent or came from an older copy of the database:
    // then confirming it is how the person vouches for the room again.
    if (mode === current && permissions?.integrity === 'ok') return
    setRequesting(mode)
    setError(undefined)
    try {
      await onChoose(mode)
    } catch (failure) {
      setError(t('workbench.picker.failed', { reason: errorText(t, failure) }))
    } finally {
      setRequesting(undefined)
    }
  }

  return (
    <div
      className="picker"
      ref={container}
      onKeyDown={(event) => {
        if (!open) return
        if (event.key === 'Escape') {
          event.stopPropagation()
          close()
        } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          event.preventDefault()
          moveFocus(event.key === 'ArrowDown' ? 1 : -1)
        }
      }}
      onBlur={(event) => {
        if (!container.current?.contains(event.relatedTarget as Node | null)) setOpen(false)
      }}
    >
      <button
        type="button"
        ref={toggle}
        className={`button picker__toggle${current === 'full-access' ? ' picker__toggle--danger' : ''}`}
        data-testid="mode-picker"
        data-mode={current ?? ''}
        aria-expanded={open}
        aria-controls={menuId}
        disabled={!permissions}
        onClick={() => setOpen(!open)}
      >
        <ShieldIcon />
        <span className="picker__current">
          {current
            ? t('workbench.picker.current', { mode: t(`mode.${current}.name`) })
            : t('workbench.picker.loading')}
        </span>
        <ChevronIcon />
      </button>
      <div
        className="picker__menu"
        id={menuId}
        role="group"
        aria-label={t('workbench.picker.label')}
        hidden={!open}
      >
        {PERMISSION_MODES.map((mode) => {
          const blocker = mode === 'full-access' ? permissions?.fullAccessUnavailable : null
          const danger = mode === 'full-access'
          return (
            <button
              key={mode}
              type="button"
              className={`picker__option${danger ? ' picker__option--danger' : ''}`}
              data-testid={`mode-option-${mode}`}
              aria-pressed={mode === current}
              disabled={Boolean(blocker)}
              onClick={() => void choose(mode)}
            >
              <span className="picker__name">
                {danger ? <WarningIcon /> : null}
                {t(`mode.${mode}.name`)}
              </span>
              <span className="picker__description">{t(`mode.${mode}.description`)}</span>
              {danger && !blocker ? (
                <span className="picker__gives-up" data-testid="mode-gives-up">
                  {t('workbench.picker.givesUp')}
                </span>
              ) : null}
              {blocker ? (
                <span className="picker__reason" data-testid={`mode-reason-${mode}`}>
                  {t(`workbench.picker.blocker.${blocker}`)}
                </span>
              ) : null}
            </button>
          )
        })}
      </div>
      {requesting ? (
        <p className="picker__note" role="status" data-testid="picker-note">
          {requesting === 'plan' && permissions?.integrity !== 'tampered'
            ? t('workbench.picker.planHint')
            : t('workbench.picker.confirmHint')}
        </p>
      ) : null}
      {error ? (
        <p className="picker__error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
