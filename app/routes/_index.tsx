export default function Home() {
  return <h1>Facet Studio</h1>
}
