export default async function(){}
