import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'

function Workbench() {
  return <main>Assent</main>
}

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <Workbench />
    </StrictMode>,
  )
}
