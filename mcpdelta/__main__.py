from mcpdelta.cli import console

console()
